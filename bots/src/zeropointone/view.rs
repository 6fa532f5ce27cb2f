//! How a Zero Point One position looks: the board (row a on top), each piece its letter on a
//! disc of its side's colour, both hands below, the last move's square framed.

use super::{decode, Play, ZeroPointOne, KINDS, LETTERS, SQUARES};
use crate::game::{Action, Game};
use crate::view::{Grid, Picture, View};

const GRID: Grid = Grid { rows: 8, cols: 8, cell: 44.0, pad: 22.0 };
const FOOTER: f32 = 44.0;
const SIDES: [(&str, &str); 2] = [("#c0392b", "Red"), ("#2c6fbb", "Blue")];

fn hand_text(s: &ZeroPointOne, side: usize) -> String {
    let hand = s.hand(side);
    let items: Vec<String> = (0..KINDS).filter(|&k| hand[k] > 0).map(|k| format!("{}{}", LETTERS[k] as char, hand[k])).collect();
    format!("{} {}: {}", SIDES[side].1, if s.in_setup() { "to set up" } else { "in hand" }, if items.is_empty() { "-".to_string() } else { items.join(" ") })
}

fn status(s: &ZeroPointOne) -> String {
    if s.is_terminal() {
        format!("game over after {} moves, scores {:?}", s.moves(), s.scores())
    } else {
        format!("{} to move, move {} of 102", SIDES[s.to_move()].1, s.moves() + 1)
    }
}

impl View for ZeroPointOne {
    fn picture(&self) -> Picture {
        let mut p = GRID.picture("#f4ecd8", FOOTER);
        if self.in_setup() && !self.is_terminal() {
            let sq = self.setup_square();
            GRID.fill(&mut p, (sq / 8, sq % 8), 1, "#fff3b0");
        }
        GRID.lines(&mut p, ("#8a7a5a", 1.0), 0, ("#8a7a5a", 1.0));
        for i in 0..8 {
            let (x, y) = GRID.centre(i, i);
            p.text(x, 11.0, 12.0, format!("{}", i + 1), "#555");
            p.text(11.0, y, 12.0, format!("{}", (b'a' + i as u8) as char), "#555");
        }
        for sq in 0..SQUARES {
            if let Some((side, kind)) = self.piece_at(sq) {
                GRID.disc(&mut p, (sq / 8, sq % 8), GRID.cell * 0.38, SIDES[side].0, "#222");
                let (x, y) = GRID.centre(sq / 8, sq % 8);
                p.text(x, y, 17.0, (LETTERS[kind] as char).to_string(), "white");
            }
        }
        let (middle, bottom) = (GRID.pad + 4.0 * GRID.cell, 2.0 * GRID.pad + 8.0 * GRID.cell);
        p.text(middle, bottom, 12.0, format!("{}   {}", hand_text(self, 0), hand_text(self, 1)), "#222");
        p.text(middle, bottom + 20.0, 12.0, status(self), "#222");
        p
    }

    fn mark_last_move(&self, action: Action, picture: &mut Picture) {
        let sq = match decode(action) {
            Play::Move { to, .. } | Play::Drop { to, .. } => to,
            Play::Place { .. } => self.setup_square_at(self.placed().saturating_sub(1)),
        };
        GRID.mark_last(picture, (sq / 8, sq % 8));
    }

    fn text_board(&self) -> String {
        let mut text = String::from("   1 2 3 4 5 6 7 8\n");
        for row in 0..8 {
            text.push_str(&format!("{}  ", (b'a' + row as u8) as char));
            for col in 0..8 {
                let c = match self.piece_at(8 * row + col) {
                    Some((0, k)) => LETTERS[k] as char,
                    Some((_, k)) => (LETTERS[k] as char).to_ascii_lowercase(),
                    None => '.',
                };
                text.push(c);
                text.push(' ');
            }
            text.push('\n');
        }
        text.push_str(&format!("{}; {}\n{}", hand_text(self, 0), hand_text(self, 1), status(self)));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_shows_every_piece_and_the_hands() {
        let s = ZeroPointOne::from_setups("WNFFDDDDAAAAAAAA", "wnffddddaaaaaaaa").unwrap();
        let text = s.text_board();
        assert!(text.contains("a  W N F F D D D D"), "{text}");
        assert!(text.contains("h  a a a a a a a a"), "{text}");
        assert!(text.contains("Red to move, move 3"), "{text}");
        let svg = s.picture().svg();
        assert_eq!(svg.matches("<circle").count(), 32);
    }
}
