//! How a quantum tic-tac-toe position looks: the 4x4 squares A..P, classical marks as big X and
//! O with their subscripts, spooky marks as small `x1 o2` texts, the squares of a move waiting
//! for its collapse highlighted, and a line saying who does what next.

use super::{action_squares, Qttt, SQUARES};
use crate::game::{Action, Game};
use crate::view::{Picture, View};

const CELL: f32 = 80.0;
const PAD: f32 = 8.0;
const FOOTER: f32 = 22.0;
const COLORS: [&str; 2] = ["#c0392b", "#2c6fbb"];
const PENDING: &str = "#fff3b0";

fn corner(square: usize) -> (f32, f32) {
    (PAD + (square % 4) as f32 * CELL, PAD + (square / 4) as f32 * CELL)
}

fn letter(square: usize) -> char {
    (b'A' + square as u8) as char
}

/// Each square's spooky marks as (player, subscript), oldest first.
fn spooky_marks(q: &Qttt) -> Vec<Vec<(usize, u8)>> {
    let mut marks = vec![Vec::new(); SQUARES];
    for m in &q.spooky {
        let player = if m.subscript % 2 == 1 { 0 } else { 1 };
        marks[m.a as usize].push((player, m.subscript));
        marks[m.b as usize].push((player, m.subscript));
    }
    marks
}

fn status(q: &Qttt) -> String {
    let p = q.to_move();
    let who = format!("{} (player {p})", ["X", "O"][p]);
    match q.pending_squares() {
        _ if q.is_terminal() => format!("game over, scores {:?}", q.scores()),
        Some((a, b)) => format!("{who} to collapse move {}: {} or {}", q.moves(), letter(a), letter(b)),
        None => format!("{who} to move, move {}", q.moves() + 1),
    }
}

impl View for Qttt {
    fn picture(&self) -> Picture {
        let side = 2.0 * PAD + 4.0 * CELL;
        let mut p = Picture::new(side, side + FOOTER);
        p.rect(0.0, 0.0, side, side + FOOTER, "white", "none");
        if let Some((a, b)) = self.pending_squares() {
            for s in [a, b] {
                let (x, y) = corner(s);
                p.rect(x, y, CELL, CELL, PENDING, "none");
            }
        }
        for k in 0..=4 {
            let at = PAD + k as f32 * CELL;
            p.line((at, PAD), (at, side - PAD), "#444", 2.0);
            p.line((PAD, at), (side - PAD, at), "#444", 2.0);
        }
        for s in 0..SQUARES {
            let (x, y) = corner(s);
            p.text(x + 9.0, y + 10.0, 10.0, letter(s).to_string(), "#999");
        }
        for (s, marks) in spooky_marks(self).iter().enumerate() {
            let (x, y) = corner(s);
            if let Some(player) = self.classical_owner(s) {
                let (m, color) = (CELL * 0.22, COLORS[player]);
                if player == 0 {
                    p.line((x + m, y + m), (x + CELL - m, y + CELL - m), color, 6.0);
                    p.line((x + CELL - m, y + m), (x + m, y + CELL - m), color, 6.0);
                } else {
                    p.circle(x + CELL / 2.0, y + CELL / 2.0, CELL / 2.0 - m + 3.0, color, "none");
                    p.circle(x + CELL / 2.0, y + CELL / 2.0, CELL / 2.0 - m - 3.0, "white", "none");
                }
                p.text(x + CELL - 10.0, y + CELL - 9.0, 11.0, self.classical[s].to_string(), color);
            }
            for (i, &(player, subscript)) in marks.iter().enumerate() {
                let (cx, cy) = (x + 16.0 + (i % 3) as f32 * 24.0, y + 24.0 + (i / 3) as f32 * 13.0);
                p.text(cx, cy, 12.0, format!("{}{subscript}", ['x', 'o'][player]), COLORS[player]);
            }
        }
        p.text(side / 2.0, side + FOOTER / 2.0, 13.0, status(self), "#333");
        p
    }

    /// The squares of the move: a spooky mark's two, or the square a collapse or a lone
    /// classical mark chose.
    fn mark_last_move(&self, action: Action, picture: &mut Picture) {
        for square in action_squares(action) {
            let (x, y) = corner(square);
            picture.mark_box(x + 2.0, y + 2.0, CELL - 4.0, CELL - 4.0);
        }
    }

    fn text_board(&self) -> String {
        let marks = spooky_marks(self);
        let cells: Vec<String> = (0..SQUARES)
            .map(|s| match self.classical_owner(s) {
                Some(player) => format!("{}:{}{}", letter(s), ["X", "O"][player], self.classical[s]),
                None if marks[s].is_empty() => format!("{}:.", letter(s)),
                None => format!("{}:{}", letter(s), marks[s].iter().map(|&(pl, sub)| format!("{}{sub}", ['x', 'o'][pl])).collect::<Vec<_>>().join(",")),
            })
            .collect();
        let width = cells.iter().map(|c| c.len()).max().unwrap_or(0) + 1;
        let mut text = String::new();
        for row in cells.chunks(4) {
            let line: String = row.iter().map(|c| format!("{c:<width$}")).collect();
            text.push_str(line.trim_end());
            text.push('\n');
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
    fn spooky_marks_then_the_collapse_are_drawn() {
        let mut q = Qttt::new();
        // A-B, C-D, B-C, then A-D closes the cycle: X chooses where mark 4 goes.
        apply_texts(&mut q, &["AB", "CD", "BC", "AD"]).unwrap();
        let p = q.picture();
        let spooky = |p: &Picture| p.count(|s| matches!(s, Shape::Text { size, .. } if *size == 12.0));
        assert_eq!(spooky(&p), 8);
        assert_eq!(p.count(|s| matches!(s, Shape::Rect { fill, .. } if *fill == PENDING)), 2);
        assert!(p.shapes.iter().any(|s| matches!(s, Shape::Text { text, color, .. } if text == "o4" && *color == COLORS[1])));
        assert!(p.fits());
        assert!(q.text_board().ends_with("X (player 0) to collapse move 4: A or D"), "{}", q.text_board());
        apply_texts(&mut q, &["A"]).unwrap();
        // Mark 4 into A pushes 1 to B, 3 to C, 2 to D: O, X, X, O.
        let c = q.picture();
        assert_eq!(spooky(&c), 0);
        assert_eq!(c.count(|s| matches!(s, Shape::Line { color, .. } if *color == COLORS[0])), 4, "two crosses");
        assert_eq!(c.count(|s| matches!(s, Shape::Circle { fill, .. } if *fill == COLORS[1])), 2, "two noughts");
        assert_eq!(c.count(|s| matches!(s, Shape::Rect { fill, .. } if *fill == PENDING)), 0);
        assert!(c.fits());
        assert_ne!(c, p);
        let text = q.text_board();
        assert_eq!(text.lines().next(), Some("A:O4 B:X1 C:X3 D:O2"), "{text}");
        assert!(text.ends_with("X (player 0) to move, move 5"), "{text}");
        // A star around F: nine marks in one square, no cycle.
        let mut star = Qttt::new();
        apply_texts(&mut star, &["FA", "FB", "FC", "FD", "FE", "FG", "FH", "FI", "FJ"]).unwrap();
        let p = star.picture();
        assert_eq!(spooky(&p), 18);
        assert!(p.fits());
        let text = star.text_board();
        assert!(text.contains("F:x1,o2,x3,o4,x5,o6,x7,o8,x9") && text.ends_with("O (player 1) to move, move 10"), "{text}");
    }
}
