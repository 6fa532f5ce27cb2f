//! How an ultimate tic-tac-toe position looks: the 9x9 cells in their nine boards, crosses and
//! noughts, won boards under their winner's big mark, and the board the mover is sent to.

use super::{cell_at, Uttt, CELLS};
use crate::game::Game;
use crate::view::{Picture, View};

const CELL: f32 = 30.0;
const PAD: f32 = 6.0;
const X_COLOR: &str = "#c0392b";
const O_COLOR: &str = "#2c6fbb";

/// The top-left corner of a cell.
fn corner(cell: usize) -> (f32, f32) {
    (PAD + (cell % 9) as f32 * CELL, PAD + (cell / 9) as f32 * CELL)
}

fn mark(picture: &mut Picture, x: f32, y: f32, size: f32, player: usize, width: f32) {
    let m = size * 0.2;
    if player == 0 {
        picture.line((x + m, y + m), (x + size - m, y + size - m), X_COLOR, width);
        picture.line((x + size - m, y + m), (x + m, y + size - m), X_COLOR, width);
    } else {
        picture.circle(x + size / 2.0, y + size / 2.0, size / 2.0 - m, "none", O_COLOR);
    }
}

impl View for Uttt {
    fn picture(&self) -> Picture {
        let side = 2.0 * PAD + 9.0 * CELL;
        let mut p = Picture::new(side, side);
        p.rect(0.0, 0.0, side, side, "white", "none");
        // The boards the mover may play in.
        if !self.is_terminal() {
            let boards: Vec<usize> = match self.target_board() {
                Some(b) => vec![b],
                None => (0..9).filter(|b| self.closed_boards() >> b & 1 == 0).collect(),
            };
            for b in boards {
                let (x, y) = corner(cell_at(b, 0));
                p.rect(x, y, 3.0 * CELL, 3.0 * CELL, "#fff3b0", "none");
            }
        }
        for k in 0..=9 {
            let at = PAD + k as f32 * CELL;
            let (color, width) = if k % 3 == 0 { ("#333", 2.5) } else { ("#bbb", 1.0) };
            p.line((at, PAD), (at, side - PAD), color, width);
            p.line((PAD, at), (side - PAD, at), color, width);
        }
        for cell in 0..CELLS {
            if let Some(player) = self.cell(cell) {
                let (x, y) = corner(cell);
                mark(&mut p, x, y, CELL, player, 2.5);
            }
        }
        for b in 0..9 {
            let (x, y) = corner(cell_at(b, 0));
            for player in 0..2 {
                if self.boards_won(player) >> b & 1 != 0 {
                    p.rect(x, y, 3.0 * CELL, 3.0 * CELL, "rgba(255,255,255,0.6)", "none");
                    mark(&mut p, x, y, 3.0 * CELL, player, 6.0);
                }
            }
        }
        p
    }

    fn text_board(&self) -> String {
        let mut text = String::new();
        for row in 0..9 {
            if row > 0 && row % 3 == 0 {
                text.push_str("------+-------+------\n");
            }
            let cells: Vec<String> = (0..9)
                .map(|col| {
                    let c = match self.cell(9 * row + col) {
                        Some(0) => "X",
                        Some(_) => "O",
                        None => ".",
                    };
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
    }
}
