//! How a Connect 4 position looks: the 7x9 blue board with its holes, red chips of player 0 and
//! yellow chips of player 1 (row 0 on top, as in the protocol's text), the last chip framed.

use super::{Connect4, COLS, ROWS, STEAL};
use crate::game::{Action, Game};
use crate::view::{Grid, Picture, View};

const GRID: Grid = Grid { rows: ROWS, cols: COLS, cell: 40.0, pad: 10.0 };
const RADIUS: f32 = 16.0;
const BOARD: &str = "#1f4fa8";
const HOLE: &str = "white";
const COLORS: [&str; 2] = ["#d62828", "#f2c40f"];
const NAMES: [&str; 2] = ["red", "yellow"];

impl View for Connect4 {
    fn picture(&self) -> Picture {
        let mut p = GRID.picture("none", 0.0);
        p.rect(GRID.pad / 2.0, GRID.pad / 2.0, p.width - GRID.pad, p.height - GRID.pad, BOARD, "#133570");
        let cells = || (0..ROWS).flat_map(|row| (0..COLS).map(move |col| (row, col)));
        for at in cells() {
            GRID.disc(&mut p, at, RADIUS, HOLE, "#133570");
        }
        for (row, col) in cells() {
            if let Some(player) = self.cell(row, col) {
                GRID.disc(&mut p, (row, col), RADIUS, COLORS[player], "#555");
            }
        }
        p
    }

    /// The chip that fell (on top of its column), or the stolen one (the only chip).
    fn mark_last_move(&self, action: Action, picture: &mut Picture) {
        let col = if action == STEAL { (0..COLS).find(|&c| self.cell(ROWS - 1, c).is_some()) } else { Some(action as usize) };
        if let Some(row) = col.and_then(|c| (0..ROWS).find(|&r| self.cell(r, c).is_some())) {
            GRID.mark_last(picture, (row, col.unwrap_or(0)));
        }
    }

    fn text_board(&self) -> String {
        let mut text = String::from("012345678\n");
        for row in self.rows() {
            text.push_str(&row);
            text.push('\n');
        }
        let stolen = if self.stolen() { " (the first chip was stolen)" } else { "" };
        match (self.is_terminal(), self.winner()) {
            (true, Some(w)) => text.push_str(&format!("game over: player {w} ({}) wins{stolen}, scores {:?}", NAMES[w], self.scores())),
            (true, None) => text.push_str(&format!("game over: draw{stolen}, scores {:?}", self.scores())),
            _ => {
                let p = self.to_move();
                text.push_str(&format!("player {p} ({}) to move, turn {}{stolen}", NAMES[p], self.turn()));
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::apply_texts;
    use crate::view::Shape;

    fn play(moves: &[&str]) -> Connect4 {
        let mut s = Connect4::new();
        apply_texts(&mut s, moves).unwrap();
        s
    }

    fn centre(row: usize, col: usize) -> (f32, f32) {
        GRID.centre(row, col)
    }

    fn chips(p: &Picture, color: &str) -> Vec<(f32, f32)> {
        p.shapes.iter().filter_map(|s| match s { Shape::Circle { cx, cy, fill, .. } if *fill == color => Some((*cx, *cy)), _ => None }).collect()
    }

    #[test]
    fn chips_are_drawn_where_they_fell_in_their_colours() {
        let s = play(&["4", "4", "0"]);
        let p = s.picture();
        assert_eq!(chips(&p, COLORS[0]), vec![centre(6, 0), centre(6, 4)], "red chips at the bottom of columns 0 and 4");
        assert_eq!(chips(&p, COLORS[1]), vec![centre(5, 4)], "yellow chip on top of column 4");
        assert_eq!(chips(&p, HOLE).len(), ROWS * COLS, "every hole of the board");
        assert!(p.fits());
        assert_eq!((p.width, p.height), (380.0, 300.0));
        // A STEAL repaints the chip: same place, other colour.
        let stolen = play(&["4", "STEAL"]).picture();
        assert_eq!((chips(&stolen, COLORS[0]).len(), chips(&stolen, COLORS[1])), (0, vec![centre(6, 4)]));
        assert_ne!(play(&["4", "4"]).picture(), play(&["4", "5"]).picture());
        // The last chip is framed: on top of column 4, and the stolen chip after a STEAL.
        let framed = |s: &Connect4, action| {
            let p = s.picture_after(Some(action));
            p.shapes.iter().filter_map(|sh| match sh { Shape::Outline { x, y, w, color, .. } if *color == crate::view::LAST_MOVE => Some((x + w / 2.0, y + w / 2.0)), _ => None }).collect::<Vec<_>>()
        };
        assert_eq!(framed(&s, 0), vec![centre(6, 0)]);
        assert_eq!(framed(&play(&["4", "4"]), 4), vec![centre(5, 4)]);
        assert_eq!(framed(&play(&["4", "STEAL"]), STEAL), vec![centre(6, 4)]);
    }

    #[test]
    fn the_text_board_shows_rows_and_the_mover() {
        let text = play(&["4", "4", "0"]).text_board();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 9, "{text}");
        assert_eq!(lines[7], "0...0....");
        assert_eq!(lines[6], "....1....");
        assert_eq!(lines[8], "player 1 (yellow) to move, turn 3");
        let won = play(&["0", "1", "0", "1", "0", "1", "0"]).text_board();
        assert!(won.ends_with("game over: player 0 (red) wins, scores [10.0, 0.0]"), "{won}");
    }
}
