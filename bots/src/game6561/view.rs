//! How a 6561 position looks: the 4x4 squares, each piece a tile in its colour (darker as its
//! value grows) with the value written on it, and a line with the score and the next step.

use super::{colour_of, exponent_of, Game6561, Step, SIZE, SLIDE_DOWN, SLIDE_LEFT, SLIDE_UP, SQUARES};
use crate::game::{Action, Game};
use crate::view::{Picture, View};

const TILE: f32 = 60.0;
const GAP: f32 = 6.0;
const HEADER: f32 = 26.0;
const EMPTY: &str = "#eee8dc";
/// Shades of red, blue and gray, by exponent (value 1, 3, 9, 27, 81 and up).
const SHADES: [[&str; 5]; 3] = [
    ["#f4b6b6", "#e87e7e", "#d64545", "#b02020", "#7a0d0d"],
    ["#b6cdf4", "#7ea6e8", "#4578d6", "#2050b0", "#0d2e7a"],
    ["#d9d9d9", "#b0b0b0", "#888888", "#5e5e5e", "#333333"],
];
const NAMES: [&str; 3] = ["red", "blue", "gray"];

fn corner(square: usize) -> (f32, f32) {
    (GAP + (square % SIZE) as f32 * (TILE + GAP), HEADER + GAP + (square / SIZE) as f32 * (TILE + GAP))
}

fn next_step(g: &Game6561) -> String {
    match g.step() {
        Step::Place(colour) => format!("place {}", NAMES[colour as usize]),
        Step::Slide => "slide".into(),
    }
}

impl View for Game6561 {
    fn picture(&self) -> Picture {
        let side = GAP + SIZE as f32 * (TILE + GAP);
        let mut p = Picture::new(side, HEADER + side);
        p.rect(0.0, HEADER, side, side, "#bbada0", "none");
        for square in 0..SQUARES {
            let (x, y) = corner(square);
            p.rect(x, y, TILE, TILE, EMPTY, "none");
        }
        for (square, &piece) in self.cells().iter().enumerate().filter(|(_, &piece)| piece != 0) {
            let (x, y) = corner(square);
            let exponent = exponent_of(piece) as usize;
            p.rect(x, y, TILE, TILE, SHADES[colour_of(piece) as usize][exponent.min(4)], "none");
            let value = 3u64.pow(exponent as u32).to_string();
            let size = if value.len() > 3 { 16.0 } else { 24.0 };
            p.text(x + TILE / 2.0, y + TILE / 2.0, size, value, if exponent < 2 { "#222" } else { "white" });
        }
        let status = if self.is_terminal() { "game over".to_string() } else { format!("move {}: {}", self.moves() + 1, next_step(self)) };
        p.text(side / 2.0, HEADER / 2.0, 14.0, format!("score {}, {status}", self.score()), "#333");
        p
    }

    /// The square the piece went to; a slide as an arrow along the board's top edge, pointing
    /// the way the pieces went.
    fn mark_last_move(&self, action: Action, picture: &mut Picture) {
        let side = GAP + SIZE as f32 * (TILE + GAP);
        if (action as usize) < SQUARES {
            let (x, y) = corner(action as usize);
            picture.mark_box(x, y, TILE, TILE);
            return;
        }
        let (mid, top, bottom) = (side / 2.0, HEADER + GAP / 2.0, HEADER + side - GAP / 2.0);
        let (from, to) = match action {
            SLIDE_UP => ((mid, bottom), (mid, top)),
            SLIDE_DOWN => ((mid, top), (mid, bottom)),
            SLIDE_LEFT => ((side - GAP / 2.0, top), (GAP / 2.0, top)),
            _ => ((GAP / 2.0, top), (side - GAP / 2.0, top)),
        };
        let (dx, dy) = ((to.0 - from.0).signum() * 10.0, (to.1 - from.1).signum() * 10.0);
        picture.mark_line(from, to);
        picture.mark_line(to, (to.0 - dx - dy, to.1 - dy + dx));
        picture.mark_line(to, (to.0 - dx + dy, to.1 - dy - dx));
    }

    fn text_board(&self) -> String {
        let mut text = String::new();
        for row in self.rows() {
            let cells: Vec<String> = row.split(' ').map(|c| format!("{c:>5}")).collect();
            text.push_str(&cells.concat());
            text.push('\n');
        }
        if self.is_terminal() {
            text.push_str(&format!("game over after {} moves: score {}", self.moves(), self.score()));
        } else {
            let p = self.to_move();
            let name = ["A", "B"][p];
            text.push_str(&format!("player {p} ({name}) to {} (move {}); score {}", next_step(self), self.moves() + 1, self.score()));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::apply_texts;
    use crate::view::Shape;

    fn tiles(p: &Picture) -> Vec<&str> {
        let colours: Vec<&str> = SHADES.iter().flatten().copied().collect();
        p.shapes.iter().filter_map(|s| match s { Shape::Rect { fill, .. } if colours.contains(fill) => Some(*fill), _ => None }).collect()
    }

    fn values(p: &Picture) -> Vec<String> {
        p.shapes.iter().filter_map(|s| match s { Shape::Text { text, size, .. } if *size > 14.0 => Some(text.clone()), _ => None }).collect()
    }

    #[test]
    fn tiles_show_colour_and_value() {
        let mut g = Game6561::new();
        // Blue on square 11, red on 12, gray on 14: three value-1 tiles.
        apply_texts(&mut g, &["11", "12", "14"]).unwrap();
        let p = g.picture();
        assert_eq!(tiles(&p), vec![SHADES[1][0], SHADES[0][0], SHADES[2][0]]);
        assert_eq!(values(&p), vec!["1", "1", "1"]);
        assert!(p.fits());
        let mut cells = [0; SQUARES];
        cells[0] = super::super::piece(super::super::BLUE, 3);
        cells[5] = super::super::piece(super::super::GRAY, 7);
        let q = Game6561::from_cells(cells, 3, 0).picture();
        assert_eq!(tiles(&q), vec![SHADES[1][3], SHADES[2][4]]);
        assert_eq!(values(&q), vec!["27", "2187"]);
        assert!(q.fits());
        let mut other = Game6561::new();
        apply_texts(&mut other, &["11", "12", "13"]).unwrap();
        assert_ne!(other.picture(), p, "a piece on another square");
    }

    #[test]
    fn the_text_board_shows_squares_and_the_mover() {
        let mut g = Game6561::new();
        apply_texts(&mut g, &["11", "12", "14"]).unwrap();
        let text = g.text_board();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert_eq!(lines[0], "   b1   r1    .   g1");
        assert_eq!(lines[4], "player 1 (B) to slide (move 4); score 3");
    }
}
