//! How a Black Hole position looks: the triangle of 36 fields (A1 on top, one more field per
//! row down to A8..H1), brown jury stones, red and blue stones with their numbers, and at the
//! end the black hole with the sums around it.

use super::{coords, label, stones_in, BlackHole, BROWN, EMPTY, FIELDS, STONES, TURNS};
use crate::game::{Action, Game};
use crate::view::{Picture, View};

const D: f32 = 46.0;
const R: f32 = 21.0;
const PAD: f32 = 10.0;
const FIELD: &str = "#f3ead7";
const BROWN_COLOR: &str = "#8b5a2b";
const COLORS: [&str; 2] = ["#d62828", "#1f5fbf"];
const NAMES: [&str; 2] = ["Red", "Blue"];

/// The centre of a field: visual row `u + v` (A1 alone on top), `u` fields from its left end.
fn centre(field: usize) -> (f32, f32) {
    let (u, v) = coords(field);
    let row = (u + v) as f32;
    (PAD + D / 2.0 + (7.0 - row) * D / 2.0 + u as f32 * D, PAD + R + row * D * 0.866)
}

impl View for BlackHole {
    /// Two points of margin given away in one move (most moves of a judged game against the
    /// 2018 winner move our search's value by less than one).
    const BLUNDER_DROP: f32 = 2.0 / super::MARGIN_SCALE;

    fn picture(&self) -> Picture {
        let mut p = Picture::new(2.0 * PAD + 8.0 * D, 2.0 * PAD + 2.0 * R + 7.0 * D * 0.866);
        for f in 0..FIELDS {
            let (x, y) = centre(f);
            p.circle(x, y, R, FIELD, "#999");
            p.text(x, y, 11.0, label(f), "#aaa");
        }
        for f in 0..FIELDS {
            let (x, y) = centre(f);
            match self.cells[f] {
                EMPTY => {}
                BROWN => p.circle(x, y, R, BROWN_COLOR, "#4a2e12"),
                c => {
                    let (player, value) = ((c as usize - 1) / STONES, (c as usize - 1) % STONES + 1);
                    p.circle(x, y, R, COLORS[player], "#333");
                    p.text(x, y, 18.0, value.to_string(), "white");
                }
            }
        }
        let status = match self.hole() {
            Some(hole) => {
                let (x, y) = centre(hole);
                p.circle(x, y, R, "black", "#f5a623");
                let (r, b) = self.hole_sums();
                format!("hole {}: red {r}, blue {b}", label(hole))
            }
            None => format!("{} to move, turn {}", NAMES[self.to_move()], self.turn() + 1),
        };
        p.text(PAD + 82.0, PAD + 8.0, 12.0, status, "#333");
        p
    }

    /// The field the stone went to.
    fn mark_last_move(&self, action: Action, picture: &mut Picture) {
        let (x, y) = centre(BlackHole::field_and_value(action).0);
        picture.mark_spot(x, y, R + 2.0);
    }

    fn text_board(&self) -> String {
        let mut text = String::new();
        for row in 0..8i32 {
            let mut line = " ".repeat(2 * (7 - row) as usize);
            for f in (0..FIELDS).filter(|&f| coords(f).0 + coords(f).1 == row) {
                let cell = match self.cells[f] {
                    EMPTY if self.hole() == Some(f) => "@@".to_string(),
                    EMPTY => "..".to_string(),
                    BROWN => "##".to_string(),
                    c => format!("{}{}", ['r', 'b'][(c as usize - 1) / STONES], (c as usize - 1) % STONES + 1),
                };
                line.push_str(&format!("{cell:<4}"));
            }
            text.push_str(line.trim_end());
            text.push('\n');
        }
        if self.turn() == TURNS {
            let (r, b) = self.hole_sums();
            let hole = self.hole().map_or("?".into(), label);
            text.push_str(&format!("game over: hole {hole}, red {r} blue {b}, scores {:?}", self.scores()));
        } else {
            let p = self.to_move();
            let hand: Vec<String> = stones_in(self.hand(p)).map(|v| v.to_string()).collect();
            text.push_str(&format!("{} (player {p}) to move, turn {}; stones {}", NAMES[p], self.turn() + 1, hand.join(" ")));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{after_random_actions, apply_texts};
    use crate::view::Shape;

    fn discs(p: &Picture, color: &str) -> usize {
        p.count(|s| matches!(s, Shape::Circle { fill, .. } if *fill == color))
    }

    fn start() -> BlackHole {
        let brown: Vec<usize> = ["A1", "B3", "C3", "D2", "H1"].iter().map(|t| super::super::parse_field(t).unwrap()).collect();
        BlackHole::with_brown(&brown)
    }

    #[test]
    fn stones_are_drawn_with_their_numbers() {
        let mut g = start();
        apply_texts(&mut g, &["A2=7", "A8=15", "B1=3"]).unwrap();
        let p = g.picture();
        assert_eq!((discs(&p, FIELD), discs(&p, BROWN_COLOR), discs(&p, COLORS[0]), discs(&p, COLORS[1])), (36, 5, 2, 1));
        let numbers: Vec<&str> = p.shapes.iter().filter_map(|s| match s { Shape::Text { text, size, .. } if *size == 18.0 => Some(text.as_str()), _ => None }).collect();
        assert_eq!(numbers, vec!["7", "15", "3"], "fields in index order: A2, A8, B1");
        let a1 = centre(0);
        assert!(a1.1 < centre(7).1 && centre(7).0 < centre(35).0 && (centre(35).1 - centre(7).1).abs() < 0.01, "A1 on top, A8..H1 the bottom row");
        assert!(p.fits());
        let mut other = start();
        apply_texts(&mut other, &["A2=7", "A8=15", "B1=4"]).unwrap();
        assert_ne!(other.picture(), p);
        let text = g.text_board();
        assert!(text.ends_with("Blue (player 1) to move, turn 4; stones 1 2 3 4 5 6 7 8 9 10 11 12 13 14"), "{text}");
        assert_eq!(text.lines().next(), Some("              ##"));
    }

    #[test]
    fn the_hole_is_marked_at_the_end() {
        for seed in 0..5 {
            let g: BlackHole = after_random_actions(seed, TURNS);
            let hole = g.hole().expect("the game is over");
            let p = g.picture();
            assert_eq!((discs(&p, COLORS[0]), discs(&p, COLORS[1]), discs(&p, "black")), (15, 15, 1));
            let (x, y) = centre(hole);
            assert!(p.shapes.contains(&Shape::Circle { cx: x, cy: y, r: R, fill: "black", stroke: "#f5a623" }));
            assert!(p.fits());
            let text = g.text_board();
            assert!(text.contains(&format!("game over: hole {}", label(hole))) && text.contains("@@"), "{text}");
        }
    }
}
