//! How a position looks, for people. `cupzero view` draws every position of judged games from a
//! game's [`View::picture`] as SVG, and `cupzero analyze` prints its [`View::text_board`]. Each
//! game implements [`View`] in its own `view.rs`, which no bot bundles; both items have
//! defaults, so a new game is drawn (as text) before it draws itself.
//!
//! A picture is a list of shapes in a box of SVG user units, drawn in order. The viewer stores
//! each distinct shape once and a game as the shapes each move adds and removes, so a picture
//! should draw what changes (pieces, highlights) as shapes of their own, apart from what stays
//! (the grid). Every game marks the move that led to a position ([`View::mark_last_move`]) in
//! one colour, [`LAST_MOVE`]; games on a grid of square cells draw with [`Grid`].

use crate::game::{Action, ActionList, Game};

/// A CSS colour: `"#c33"`, `"white"`, `"none"`.
pub type Color = &'static str;

/// The colour of the last move's mark, the same in every game.
pub const LAST_MOVE: Color = "#e0119d";

/// One shape of a picture; coordinates in the picture's units.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Rect { x: f32, y: f32, w: f32, h: f32, fill: Color, stroke: Color },
    Circle { cx: f32, cy: f32, r: f32, fill: Color, stroke: Color },
    Line { x1: f32, y1: f32, x2: f32, y2: f32, color: Color, width: f32 },
    Polygon { points: Vec<(f32, f32)>, fill: Color, stroke: Color },
    /// An unfilled frame (`round`: the ellipse inside the box) drawn `width` units wide.
    Outline { x: f32, y: f32, w: f32, h: f32, round: bool, color: Color, width: f32 },
    /// Text centred on `(x, y)`, `size` units high.
    Text { x: f32, y: f32, size: f32, text: String, color: Color },
}

/// Numbers as SVG takes them: at most two decimals, no trailing zeros.
/// `v` to two decimals without trailing zeros (`0.5`, `3`, `-1.25`). Integer arithmetic: a
/// page formats millions of these, and float formatting with a precision is slow.
fn num(v: f32) -> String {
    let scaled = v as f64 * 100.0;
    // Ties to even, as f64::round_ties_even (newer than the bots' compiler floor) rounds.
    let nearest = if (scaled - scaled.trunc()).abs() == 0.5 { 2.0 * (scaled / 2.0).round() } else { scaled.round() };
    let hundredths = nearest as i64;
    let sign = if hundredths < 0 { "-" } else { "" };
    let (whole, fraction) = (hundredths.unsigned_abs() / 100, hundredths.unsigned_abs() % 100);
    match fraction {
        0 => format!("{sign}{whole}"),
        f if f % 10 == 0 => format!("{sign}{whole}.{}", f / 10),
        f => format!("{sign}{whole}.{f:02}"),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

impl Shape {
    /// The shape as one SVG element.
    pub fn svg(&self) -> String {
        match self {
            Shape::Rect { x, y, w, h, fill, stroke } => {
                format!(r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{fill}" stroke="{stroke}"/>"#, num(*x), num(*y), num(*w), num(*h))
            }
            Shape::Circle { cx, cy, r, fill, stroke } => format!(r#"<circle cx="{}" cy="{}" r="{}" fill="{fill}" stroke="{stroke}"/>"#, num(*cx), num(*cy), num(*r)),
            Shape::Line { x1, y1, x2, y2, color, width } => {
                format!(r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{color}" stroke-width="{}"/>"#, num(*x1), num(*y1), num(*x2), num(*y2), num(*width))
            }
            Shape::Polygon { points, fill, stroke } => {
                let points: Vec<String> = points.iter().map(|&(x, y)| format!("{},{}", num(x), num(y))).collect();
                format!(r#"<polygon points="{}" fill="{fill}" stroke="{stroke}"/>"#, points.join(" "))
            }
            Shape::Outline { x, y, w, h, round: false, color, width } => format!(
                r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{color}" stroke-width="{}"/>"#,
                num(*x),
                num(*y),
                num(*w),
                num(*h),
                num(*width)
            ),
            Shape::Outline { x, y, w, h, round: true, color, width } => format!(
                r#"<ellipse cx="{}" cy="{}" rx="{}" ry="{}" fill="none" stroke="{color}" stroke-width="{}"/>"#,
                num(x + w / 2.0),
                num(y + h / 2.0),
                num(w / 2.0),
                num(h / 2.0),
                num(*width)
            ),
            Shape::Text { x, y, size, text, color } => format!(
                r#"<text x="{}" y="{}" font-size="{}" fill="{color}" text-anchor="middle" dominant-baseline="central" font-family="sans-serif">{}</text>"#,
                num(*x),
                num(*y),
                num(*size),
                escape(text)
            ),
        }
    }
}

/// Shapes in a `width` x `height` box.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Picture {
    pub width: f32,
    pub height: f32,
    pub shapes: Vec<Shape>,
}

impl Picture {
    pub fn new(width: f32, height: f32) -> Self {
        Picture { width, height, shapes: Vec::new() }
    }

    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, fill: Color, stroke: Color) {
        self.shapes.push(Shape::Rect { x, y, w, h, fill, stroke });
    }

    pub fn circle(&mut self, cx: f32, cy: f32, r: f32, fill: Color, stroke: Color) {
        self.shapes.push(Shape::Circle { cx, cy, r, fill, stroke });
    }

    pub fn line(&mut self, (x1, y1): (f32, f32), (x2, y2): (f32, f32), color: Color, width: f32) {
        self.shapes.push(Shape::Line { x1, y1, x2, y2, color, width });
    }

    pub fn polygon(&mut self, points: Vec<(f32, f32)>, fill: Color, stroke: Color) {
        self.shapes.push(Shape::Polygon { points, fill, stroke });
    }

    pub fn text(&mut self, x: f32, y: f32, size: f32, text: impl Into<String>, color: Color) {
        self.shapes.push(Shape::Text { x, y, size, text: text.into(), color });
    }

    /// The last move's mark around a box (a square taken, a cell, a tile).
    pub fn mark_box(&mut self, x: f32, y: f32, w: f32, h: f32) {
        self.shapes.push(Shape::Outline { x, y, w, h, round: false, color: LAST_MOVE, width: 3.0 });
    }

    /// The last move's mark around a round field of radius `r`.
    pub fn mark_spot(&mut self, cx: f32, cy: f32, r: f32) {
        self.shapes.push(Shape::Outline { x: cx - r, y: cy - r, w: 2.0 * r, h: 2.0 * r, round: true, color: LAST_MOVE, width: 3.0 });
    }

    /// The last move's mark along a line (a segment drawn, a slide's direction).
    pub fn mark_line(&mut self, from: (f32, f32), to: (f32, f32)) {
        self.line(from, to, LAST_MOVE, 3.0);
    }

    /// A whole SVG document (the viewer builds its own from [`Shape::svg`]).
    /// Whether every shape lies within the picture's box (a check for each game's drawing).
    pub fn fits(&self) -> bool {
        let ok = |x: f32, y: f32| (0.0..=self.width).contains(&x) && (0.0..=self.height).contains(&y);
        self.shapes.iter().all(|s| match s {
            Shape::Rect { x, y, w, h, .. } => ok(*x, *y) && ok(x + w, y + h),
            Shape::Circle { cx, cy, r, .. } => ok(cx - r, cy - r) && ok(cx + r, cy + r),
            Shape::Line { x1, y1, x2, y2, .. } => ok(*x1, *y1) && ok(*x2, *y2),
            Shape::Polygon { points, .. } => points.iter().all(|&(x, y)| ok(x, y)),
            Shape::Outline { x, y, w, h, .. } => ok(*x, *y) && ok(x + w, y + h),
            Shape::Text { x, y, .. } => ok(*x, *y),
        })
    }

    /// How many shapes `keep` accepts.
    pub fn count(&self, keep: impl Fn(&Shape) -> bool) -> usize {
        self.shapes.iter().filter(|s| keep(s)).count()
    }

    pub fn svg(&self) -> String {
        let body: String = self.shapes.iter().map(Shape::svg).collect();
        format!(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}">{body}</svg>"#, num(self.width), num(self.height))
    }
}

/// Lines of text, one under the other, in a monospace box: the default picture.
pub fn text_picture(text: &str) -> Picture {
    let lines: Vec<&str> = text.lines().collect();
    let columns = lines.iter().map(|l| l.chars().count()).max().unwrap_or(1).max(1);
    let mut picture = Picture::new(columns as f32 * 6.0 + 8.0, lines.len().max(1) as f32 * 12.0 + 8.0);
    picture.rect(0.0, 0.0, picture.width, picture.height, "#fafafa", "#999");
    for (row, line) in lines.iter().enumerate() {
        for (col, c) in line.chars().enumerate().filter(|(_, c)| !c.is_whitespace()) {
            picture.text(4.0 + col as f32 * 6.0 + 3.0, 4.0 + row as f32 * 12.0 + 6.0, 10.0, c.to_string(), "#222");
        }
    }
    picture
}

/// How a game's positions look. See the module documentation.
pub trait View: Game {
    /// How far one move must drop its mover's value (values run from -1 to 1) for the viewer
    /// to mark it a blunder. A game scored by margin, whose values move by less, says less.
    const BLUNDER_DROP: f32 = 0.3;

    /// The position drawn. Default: [`View::text_board`] as text.
    fn picture(&self) -> Picture {
        text_picture(&self.text_board())
    }

    /// Marks `action`, the move that led to this position, on its picture: where the piece
    /// went, the square taken, the segment drawn (`Picture::mark_box`, `mark_spot`,
    /// `mark_line`). Default: no mark (a game's own picture should have one).
    fn mark_last_move(&self, _action: Action, _picture: &mut Picture) {}

    /// The picture after `last` (the move that led here), with its mark.
    fn picture_after(&self, last: Option<Action>) -> Picture {
        let mut picture = self.picture();
        if let Some(action) = last {
            self.mark_last_move(action, &mut picture);
        }
        picture
    }

    /// The position as text for a terminal. Default: who moves, and the legal actions.
    fn text_board(&self) -> String {
        if self.is_terminal() {
            return format!("game over, scores {:?}", self.scores());
        }
        let mut list = ActionList::new();
        self.legal_actions(&mut list);
        let legal: Vec<String> = list.iter().map(|&a| Self::format_action(a)).collect();
        format!("player {} to move\nlegal: {}", self.to_move(), legal.join(" "))
    }
}

/// A board of `rows` x `cols` square cells of side `cell`, `pad` from the picture's edges: the
/// drawing that games on a grid share (cells, their lines, crosses, noughts and discs, blocks
/// of cells highlighted, the last move framed). Row 0 is on top.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub rows: usize,
    pub cols: usize,
    pub cell: f32,
    pub pad: f32,
}

impl Grid {
    /// An empty picture of the board on `background` (`"none"`: nothing drawn), with `footer`
    /// units below it for a line of text.
    pub fn picture(&self, background: Color, footer: f32) -> Picture {
        let (w, h) = (2.0 * self.pad + self.cols as f32 * self.cell, 2.0 * self.pad + self.rows as f32 * self.cell + footer);
        let mut p = Picture::new(w, h);
        if background != "none" {
            p.rect(0.0, 0.0, w, h, background, "none");
        }
        p
    }

    /// The top-left corner of cell `(row, col)`.
    pub fn corner(&self, row: usize, col: usize) -> (f32, f32) {
        (self.pad + col as f32 * self.cell, self.pad + row as f32 * self.cell)
    }

    /// The centre of cell `(row, col)`.
    pub fn centre(&self, row: usize, col: usize) -> (f32, f32) {
        let (x, y) = self.corner(row, col);
        (x + self.cell / 2.0, y + self.cell / 2.0)
    }

    /// The lines between cells and around the board; every `block`-th one (0: none) drawn in
    /// `thick` instead.
    pub fn lines(&self, p: &mut Picture, thin: (Color, f32), block: usize, thick: (Color, f32)) {
        let (right, bottom) = (self.pad + self.cols as f32 * self.cell, self.pad + self.rows as f32 * self.cell);
        let style = |k: usize| if block > 0 && k % block == 0 { thick } else { thin };
        for k in 0..=self.cols {
            let x = self.pad + k as f32 * self.cell;
            p.line((x, self.pad), (x, bottom), style(k).0, style(k).1);
        }
        for k in 0..=self.rows {
            let y = self.pad + k as f32 * self.cell;
            p.line((self.pad, y), (right, y), style(k).0, style(k).1);
        }
    }

    /// `span` x `span` cells from `(row, col)` filled with `fill`.
    pub fn fill(&self, p: &mut Picture, (row, col): (usize, usize), span: usize, fill: Color) {
        let (x, y) = self.corner(row, col);
        p.rect(x, y, span as f32 * self.cell, span as f32 * self.cell, fill, "none");
    }

    /// A cross over `span` x `span` cells from `(row, col)`: two strokes.
    pub fn cross(&self, p: &mut Picture, (row, col): (usize, usize), span: usize, color: Color, width: f32) {
        let ((x, y), size) = (self.corner(row, col), span as f32 * self.cell);
        let m = size * 0.2;
        p.line((x + m, y + m), (x + size - m, y + size - m), color, width);
        p.line((x + size - m, y + m), (x + m, y + size - m), color, width);
    }

    /// A nought over `span` x `span` cells from `(row, col)`: one circle.
    pub fn nought(&self, p: &mut Picture, (row, col): (usize, usize), span: usize, color: Color) {
        let ((x, y), size) = (self.corner(row, col), span as f32 * self.cell);
        p.circle(x + size / 2.0, y + size / 2.0, size * 0.3, "none", color);
    }

    /// A disc of `radius` on cell `(row, col)`.
    pub fn disc(&self, p: &mut Picture, (row, col): (usize, usize), radius: f32, fill: Color, stroke: Color) {
        let (x, y) = self.centre(row, col);
        p.circle(x, y, radius, fill, stroke);
    }

    /// The last move's mark on cell `(row, col)`.
    pub fn mark_last(&self, p: &mut Picture, (row, col): (usize, usize)) {
        let (x, y) = self.corner(row, col);
        p.mark_box(x + 1.5, y + 1.5, self.cell - 3.0, self.cell - 3.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_become_svg_elements_with_short_numbers_and_escaped_text() {
        let mut p = Picture::new(10.0, 5.0);
        p.rect(0.0, 0.5, 10.0, 4.25, "#fff", "none");
        p.text(5.0, 2.5, 2.0, "a<b & \"c\"", "black");
        assert_eq!(p.shapes[0].svg(), r##"<rect x="0" y="0.5" width="10" height="4.25" fill="#fff" stroke="none"/>"##);
        assert!(p.shapes[1].svg().contains(">a&lt;b &amp; &quot;c&quot;</text>"), "{}", p.shapes[1].svg());
        assert!(p.svg().starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5">"#));
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(1.0 / 3.0), "0.33");
        assert_eq!((num(-2.5), num(0.05), num(-0.999), num(12.0)), ("-2.5".into(), "0.05".into(), "-1".into(), "12".into()));
        for i in -3000..3000 {
            let v = i as f32 * 0.0371;
            let text = format!("{v:.2}");
            let text = text.trim_end_matches('0').trim_end_matches('.');
            assert_eq!(num(v), if text == "-0" { "0" } else { text }, "{v}");
        }
    }

    #[test]
    fn the_text_picture_draws_every_visible_character() {
        let p = text_picture("ab\n c");
        let texts = p.shapes.iter().filter(|s| matches!(s, Shape::Text { .. })).count();
        assert_eq!(texts, 3);
        assert!(p.width > 0.0 && p.height > 0.0);
    }
}
