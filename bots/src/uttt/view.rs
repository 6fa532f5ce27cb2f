//! How an ultimate tic-tac-toe position looks: the 9x9 cells in their nine boards, crosses and
//! noughts, won boards under their winner's big mark, the board the mover is sent to, and the
//! last mark framed.

use super::{Uttt, CELLS};
use crate::game::{Action, Game};
use crate::view::{Grid, Picture, View};

const GRID: Grid = Grid { rows: 9, cols: 9, cell: 30.0, pad: 6.0 };
const X_COLOR: &str = "#c0392b";
const O_COLOR: &str = "#2c6fbb";
const SENT_TO: &str = "#fff3b0";

/// Player `player`'s mark over `span` x `span` cells from `at`.
fn mark(p: &mut Picture, at: (usize, usize), span: usize, player: usize) {
    if player == 0 {
        GRID.cross(p, at, span, X_COLOR, if span == 1 { 2.5 } else { 6.0 });
    } else {
        GRID.nought(p, at, span, O_COLOR);
    }
}

/// The top-left cell of small board `b`.
fn board_corner(b: usize) -> (usize, usize) {
    (3 * (b / 3), 3 * (b % 3))
}

impl View for Uttt {
    fn picture(&self) -> Picture {
        let mut p = GRID.picture("white", 0.0);
        if !self.is_terminal() {
            let open = (0..9).filter(|&b| self.target_board().map_or(self.closed_boards() >> b & 1 == 0, |t| t == b));
            for b in open {
                GRID.fill(&mut p, board_corner(b), 3, SENT_TO);
            }
        }
        GRID.lines(&mut p, ("#bbb", 1.0), 3, ("#333", 2.5));
        for cell in 0..CELLS {
            if let Some(player) = self.cell(cell) {
                mark(&mut p, (cell / 9, cell % 9), 1, player);
            }
        }
        for b in 0..9 {
            for player in (0..2).filter(|&pl| self.boards_won(pl) >> b & 1 != 0) {
                GRID.fill(&mut p, board_corner(b), 3, "rgba(255,255,255,0.6)");
                mark(&mut p, board_corner(b), 3, player);
            }
        }
        p
    }

    fn mark_last_move(&self, action: Action, picture: &mut Picture) {
        GRID.mark_last(picture, (action as usize / 9, action as usize % 9));
    }

    fn text_board(&self) -> String {
        let mut text = String::new();
        for row in 0..9 {
            if row > 0 && row % 3 == 0 {
                text.push_str("------+-------+------\n");
            }
            let cells: Vec<String> = (0..9)
                .map(|col| {
                    let c = match self.cell(9 * row + col) { Some(0) => "X", Some(_) => "O", None => "." };
                    if col > 0 && col % 3 == 0 { format!("| {c}") } else { c.to_string() }
                })
                .collect();
            text.push_str(&cells.join(" "));
            text.push('\n');
        }
        let won = |p: usize| self.boards_won(p).count_ones();
        if self.is_terminal() {
            text.push_str(&format!("game over: boards X {} O {}, scores {:?}", won(0), won(1), self.scores()));
        } else {
            let place = match self.target_board() {
                Some(b) => format!("in board {} (rows {}-{}, columns {}-{})", b, 3 * (b / 3), 3 * (b / 3) + 2, 3 * (b % 3), 3 * (b % 3) + 2),
                None => "in any open board".into(),
            };
            text.push_str(&format!("{} to move {place}; boards X {} O {}", if self.to_move() == 0 { "X" } else { "O" }, won(0), won(1)));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Shape;

    #[test]
    fn marks_and_the_sent_to_board_are_drawn() {
        let mut s = Uttt::new();
        crate::tools::apply_texts(&mut s, &["44", "33", "00"]).unwrap();
        let p = s.picture();
        let crosses = p.count(|sh| matches!(sh, Shape::Line { color, .. } if *color == X_COLOR));
        let noughts = p.count(|sh| matches!(sh, Shape::Circle { stroke, .. } if *stroke == O_COLOR));
        assert_eq!((crosses, noughts), (4, 1), "two crosses of two strokes, one nought");
        let highlights = p.count(|sh| matches!(sh, Shape::Rect { fill, .. } if *fill == "#fff3b0"));
        assert_eq!(highlights, 1, "O is sent to board 0 only");
        assert!(p.fits());
        let mut t = s.clone();
        t.apply(1);
        assert_ne!(t.picture(), p);
        let text = s.text_board();
        assert!(text.starts_with("X . . | . . . | . . .\n"), "{text}");
        assert!(text.ends_with("O to move in board 0 (rows 0-2, columns 0-2); boards X 0 O 0"), "{text}");
        // The last mark (00: the top-left cell) is framed, and only it.
        let marked = s.picture_after(Some(0));
        assert_eq!(marked.count(|sh| matches!(sh, Shape::Outline { x, y, color, .. } if *color == crate::view::LAST_MOVE && *x < 10.0 && *y < 10.0)), 1);
        assert_eq!(marked.shapes.len(), p.shapes.len() + 1);
    }
}
