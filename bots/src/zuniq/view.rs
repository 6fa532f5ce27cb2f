//! How a Zuniq position looks: the 6x6 dots, drawn segments as thick lines, undrawn ones faint,
//! cells inside closed zones shaded, and a line with the mover and the zone sizes taken.

use super::{horizontal, vertical, Zuniq, CELLS_PER_SIDE, DOTS};
use crate::game::{Action, Game};
use crate::view::{Picture, View};

const CELL: f32 = 50.0;
const PAD: f32 = 20.0;
const FOOTER: f32 = 24.0;
const DRAWN: &str = "#222";
const FAINT: &str = "#ddd";
const CLOSED: &str = "#cfe0f3";
const NAMES: [&str; 2] = ["White", "Black"];

fn dot(row: usize, col: usize) -> (f32, f32) {
    (PAD + col as f32 * CELL, PAD + row as f32 * CELL)
}

/// Every segment with its two dots.
fn segments() -> impl Iterator<Item = (usize, (f32, f32), (f32, f32))> {
    let across = (0..DOTS).flat_map(|r| (0..CELLS_PER_SIDE).map(move |c| (horizontal(r, c), dot(r, c), dot(r, c + 1))));
    let down = (0..CELLS_PER_SIDE).flat_map(|r| (0..DOTS).map(move |c| (vertical(r, c), dot(r, c), dot(r + 1, c))));
    across.chain(down)
}

fn status(z: &Zuniq) -> String {
    let sizes: Vec<String> = (1..32).filter(|s| z.zone_sizes() >> s & 1 == 1).map(|s| s.to_string()).collect();
    let zones = if sizes.is_empty() { "no zones".to_string() } else { format!("zones {}", sizes.join(" ")) };
    match z.winner() {
        Some(w) => format!("game over: {} wins; {zones}", NAMES[w]),
        None => format!("{} to move, move {}; {zones}", NAMES[z.to_move()], z.moves() + 1),
    }
}

impl View for Zuniq {
    fn picture(&self) -> Picture {
        let side = 2.0 * PAD + CELLS_PER_SIDE as f32 * CELL;
        let mut p = Picture::new(side, side + FOOTER);
        p.rect(0.0, 0.0, side, side + FOOTER, "white", "none");
        for cell in (0..CELLS_PER_SIDE * CELLS_PER_SIDE).filter(|c| self.closed_cells() >> c & 1 == 1) {
            let (x, y) = dot(cell / CELLS_PER_SIDE, cell % CELLS_PER_SIDE);
            p.rect(x, y, CELL, CELL, CLOSED, "none");
        }
        for (_, a, b) in segments() {
            p.line(a, b, FAINT, 2.0);
        }
        for (_, a, b) in segments().filter(|(s, _, _)| self.drawn >> s & 1 == 1) {
            p.line(a, b, DRAWN, 5.0);
        }
        for row in 0..DOTS {
            for col in 0..DOTS {
                let (x, y) = dot(row, col);
                p.circle(x, y, 4.0, "black", "none");
            }
        }
        p.text(side / 2.0, side + FOOTER / 2.0, 13.0, status(self), "#333");
        p
    }

    /// The segment drawn.
    fn mark_last_move(&self, action: Action, picture: &mut Picture) {
        if let Some((_, a, b)) = segments().find(|&(s, _, _)| s == action as usize) {
            picture.mark_line(a, b);
        }
    }

    fn text_board(&self) -> String {
        let drawn = |s: usize| self.drawn >> s & 1 == 1;
        let mut text = String::from("  1 2 3 4 5 6\n");
        for row in 0..DOTS {
            let mut line = format!("{} ", (b'A' + row as u8) as char);
            for col in 0..DOTS {
                line.push('+');
                if col < CELLS_PER_SIDE {
                    line.push(if drawn(horizontal(row, col)) { '-' } else { ' ' });
                }
            }
            text.push_str(line.trim_end());
            text.push('\n');
            if row < CELLS_PER_SIDE {
                let mut line = String::from("  ");
                for col in 0..DOTS {
                    line.push(if drawn(vertical(row, col)) { '|' } else { ' ' });
                    if col < CELLS_PER_SIDE {
                        line.push(if self.closed_cells() >> (row * CELLS_PER_SIDE + col) & 1 == 1 { '#' } else { ' ' });
                    }
                }
                text.push_str(line.trim_end());
                text.push('\n');
            }
        }
        text.push_str(&status(self));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::apply_texts;
    use crate::view::Shape;

    #[test]
    fn segments_and_closed_cells_are_drawn() {
        let mut z = Zuniq::new();
        apply_texts(&mut z, &["A1h", "A1v", "C3v"]).unwrap();
        let p = z.picture();
        assert_eq!(p.count(|s| matches!(s, Shape::Line { color, .. } if *color == DRAWN)), 3);
        assert_eq!(p.count(|s| matches!(s, Shape::Line { color, .. } if *color == FAINT)), 60);
        assert_eq!(p.count(|s| matches!(s, Shape::Circle { .. })), 36);
        assert!(p.shapes.contains(&Shape::Line { x1: PAD, y1: PAD, x2: PAD, y2: PAD + CELL, color: DRAWN, width: 5.0 }), "A1v");
        assert_eq!(p.count(|s| matches!(s, Shape::Rect { fill, .. } if *fill == CLOSED)), 0);
        assert!(p.fits());
        // Closing the top-left cell: one shaded cell, zone size 1 taken.
        apply_texts(&mut z, &["A2v", "B1h"]).unwrap();
        assert_eq!(z.closed_cells(), 1);
        let q = z.picture();
        assert_eq!(q.count(|s| matches!(s, Shape::Rect { fill, .. } if *fill == CLOSED)), 1);
        assert!(q.shapes.contains(&Shape::Rect { x: PAD, y: PAD, w: CELL, h: CELL, fill: CLOSED, stroke: "none" }));
        assert!(q.fits());
        assert_ne!(p, q);
    }

    #[test]
    fn the_text_board_shows_segments_and_the_mover() {
        let mut z = Zuniq::new();
        apply_texts(&mut z, &["A1h", "A1v", "A2v", "B1h", "F5h"]).unwrap();
        let text = z.text_board();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 13, "{text}");
        assert_eq!(lines[1], "A +-+ + + + +");
        assert_eq!(lines[2], "  |#|");
        assert_eq!(lines[3], "B +-+ + + + +");
        assert_eq!(lines[11], "F + + + + +-+");
        assert_eq!(lines[12], "Black to move, move 6; zones 1");
    }
}
