//! PNG plot of Elo (with 95 % error bars) against training steps, with the
//! fixed anchors of the ladder drawn as dashed reference lines.
//!
//! plotters draws the shapes and encodes the PNG; its text rendering needs
//! a font backend (font-kit and system fonts, or ab_glyph with a font file),
//! and without one it panics. So every label here is drawn with the small
//! built-in 5x7 pixel font of this module, and plots work on machines with
//! no fonts at all.

use plotters::prelude::*;
use shashki_atomic::write_atomic_with;
use std::path::Path;
use thiserror::Error;

/// One rated checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotPoint {
    /// Training steps of the checkpoint.
    pub steps: u64,
    /// Its rating.
    pub elo: f64,
    /// Half-width of its 95 % interval.
    pub ci95: f64,
}

/// A horizontal reference line (a fixed anchor such as `ab:depth=4`).
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceLine {
    /// Label drawn at the right end.
    pub name: String,
    /// Its rating.
    pub elo: f64,
}

/// Why a plot could not be drawn.
#[derive(Debug, Error)]
pub enum PlotError {
    /// Nothing to plot.
    #[error("no rated checkpoint with known training steps to plot")]
    Empty,
    /// Drawing or writing failed.
    #[error("cannot write plot {path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// The cause.
        reason: String,
    },
}

/// Image size of the written plot.
pub const PLOT_SIZE: (u32, u32) = (960, 600);

/// Writes the plot to `path` (PNG) atomically.
pub fn write_elo_plot(
    path: &Path,
    title: &str,
    points: &[PlotPoint],
    references: &[ReferenceLine],
) -> Result<(), PlotError> {
    if points.is_empty() {
        return Err(PlotError::Empty);
    }
    let fail = |reason: String| PlotError::Write {
        path: path.display().to_string(),
        reason,
    };
    write_atomic_with(path, |tmp| {
        let root = BitMapBackend::new(tmp, PLOT_SIZE).into_drawing_area();
        draw(&root, title, points, references).map_err(std::io::Error::other)?;
        root.present()
            .map_err(|e| std::io::Error::other(e.to_string()))
    })
    .map_err(|e| fail(e.to_string()))
}

/// Draws the plot into an RGB buffer of `size` (3 bytes per pixel).
pub fn render_elo_plot(
    buffer: &mut [u8],
    size: (u32, u32),
    title: &str,
    points: &[PlotPoint],
    references: &[ReferenceLine],
) -> Result<(), PlotError> {
    if points.is_empty() {
        return Err(PlotError::Empty);
    }
    let root = BitMapBackend::with_buffer(buffer, size).into_drawing_area();
    draw(&root, title, points, references).map_err(|reason| PlotError::Write {
        path: "<buffer>".into(),
        reason,
    })?;
    root.present().map_err(|e| PlotError::Write {
        path: "<buffer>".into(),
        reason: e.to_string(),
    })
}

/// Pixel scale of the built-in font (each font pixel is `SCALE` x `SCALE`).
const SCALE: i32 = 2;

/// Linear map of data to pixels inside the plot frame.
struct Frame {
    left: i32,
    right: i32,
    top: i32,
    bottom: i32,
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl Frame {
    fn x(&self, v: f64) -> i32 {
        self.left
            + ((v - self.x0) / (self.x1 - self.x0) * (self.right - self.left) as f64).round() as i32
    }
    fn y(&self, v: f64) -> i32 {
        self.bottom
            - ((v - self.y0) / (self.y1 - self.y0) * (self.bottom - self.top) as f64).round() as i32
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    points: &[PlotPoint],
    references: &[ReferenceLine],
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (width, height) = root.dim_in_pixel();
    root.fill(&WHITE).map_err(err)?;
    let mut pts = points.to_vec();
    pts.sort_by_key(|p| p.steps);
    let frame = frame_around(&pts, references, width as i32, height as i32);
    draw_axes(root, &frame, title).map_err(err)?;
    draw_references(root, &frame, references).map_err(err)?;
    draw_series(root, &frame, &pts).map_err(err)
}

/// The plot area of a `width` x `height` picture, its scales covering the
/// points (sorted by steps), their error bars and the reference lines.
fn frame_around(pts: &[PlotPoint], references: &[ReferenceLine], width: i32, height: i32) -> Frame {
    let (mut x0, mut x1) = (pts[0].steps as f64, pts[pts.len() - 1].steps as f64);
    if x1 <= x0 {
        x0 -= 1.0;
        x1 += 1.0;
    }
    let pad_x = (x1 - x0) * 0.04;
    let lows = pts
        .iter()
        .map(|p| p.elo - p.ci95)
        .chain(references.iter().map(|r| r.elo));
    let highs = pts
        .iter()
        .map(|p| p.elo + p.ci95)
        .chain(references.iter().map(|r| r.elo));
    let mut y0 = lows.filter(|v| v.is_finite()).fold(f64::INFINITY, f64::min);
    let mut y1 = highs
        .filter(|v| v.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    if !y0.is_finite() || !y1.is_finite() {
        (y0, y1) = (-100.0, 100.0);
    }
    if y1 - y0 < 20.0 {
        y0 -= 10.0;
        y1 += 10.0;
    }
    let pad_y = (y1 - y0) * 0.06;
    Frame {
        left: 90,
        right: width - 190,
        top: 50,
        bottom: height - 70,
        x0: x0 - pad_x,
        x1: x1 + pad_x,
        y0: y0 - pad_y,
        y1: y1 + pad_y,
    }
}

/// Grid, tick labels, the frame and the titles.
fn draw_axes<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    frame: &Frame,
    title: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let grid = RGBColor(225, 225, 225);
    let ink = RGBColor(30, 30, 30);
    for v in ticks(frame.x0, frame.x1, 7) {
        let x = frame.x(v);
        line(root, (x, frame.top), (x, frame.bottom), grid)?;
        let label = format_steps(v);
        let w = text_width(&label);
        text(root, &label, x - w / 2, frame.bottom + 10, ink)?;
    }
    for v in ticks(frame.y0, frame.y1, 8) {
        let y = frame.y(v);
        line(root, (frame.left, y), (frame.right, y), grid)?;
        let label = format!("{v:.0}");
        let w = text_width(&label);
        text(root, &label, frame.left - 10 - w, y - 7, ink)?;
    }
    root.draw(&Rectangle::new(
        [(frame.left, frame.top), (frame.right, frame.bottom)],
        ink.stroke_width(1),
    ))?;
    text(root, title, frame.left, 16, ink)?;
    let xlabel = "training steps";
    text(
        root,
        xlabel,
        (frame.left + frame.right) / 2 - text_width(xlabel) / 2,
        frame.bottom + 40,
        ink,
    )?;
    // Above the frame, clear of the top tick label.
    text(root, "Elo", 20, frame.top - 24, ink)
}

/// Reference lines, dashed, labelled on the right; the labels are spread
/// at least one text line apart, top to bottom.
fn draw_references<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    frame: &Frame,
    references: &[ReferenceLine],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let reference = RGBColor(200, 90, 40);
    let mut sorted: Vec<&ReferenceLine> = references.iter().collect();
    sorted.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    let mut label_y = i32::MIN;
    for r in sorted {
        let y = frame.y(r.elo);
        let mut x = frame.left;
        while x < frame.right {
            let end = (x + 8).min(frame.right);
            line(root, (x, y), (end, y), reference)?;
            x += 14;
        }
        label_y = (y - 7).max(label_y.saturating_add(18));
        let label = format!("{} {:.0}", r.name, r.elo);
        text(root, &label, frame.right + 8, label_y, reference)?;
    }
    Ok(())
}

/// The rated checkpoints: line, error bars, dots.
fn draw_series<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    frame: &Frame,
    pts: &[PlotPoint],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let series = RGBColor(30, 80, 200);
    let coords: Vec<(i32, i32)> = pts
        .iter()
        .map(|p| (frame.x(p.steps as f64), frame.y(p.elo)))
        .collect();
    root.draw(&PathElement::new(coords.clone(), series.stroke_width(2)))?;
    for (p, &(x, y)) in pts.iter().zip(&coords) {
        if p.ci95.is_finite() && p.ci95 > 0.0 {
            let (lo, hi) = (frame.y(p.elo - p.ci95), frame.y(p.elo + p.ci95));
            line(root, (x, lo), (x, hi), series)?;
            line(root, (x - 5, lo), (x + 5, lo), series)?;
            line(root, (x - 5, hi), (x + 5, hi), series)?;
        }
        root.draw(&Circle::new((x, y), 4, series.filled()))?;
    }
    Ok(())
}

fn line<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    from: (i32, i32),
    to: (i32, i32),
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.draw(&PathElement::new(vec![from, to], color.stroke_width(1)))
}

/// About `count` round tick values covering `[lo, hi]` (steps of 1, 2, 5 x 10^k).
fn ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    let raw = (hi - lo) / count.max(1) as f64;
    if raw.is_nan() || raw <= 0.0 || !raw.is_finite() {
        return vec![lo];
    }
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut v = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while v <= hi + step * 1e-9 && out.len() < 100 {
        out.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
        v += step;
    }
    out
}

/// Step counts: plain below ten thousand, then with k or M.
fn format_steps(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else {
        format!("{v:.0}")
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Width in pixels of `s` in the built-in font.
fn text_width(s: &str) -> i32 {
    let n = s.chars().count() as i32;
    if n == 0 { 0 } else { n * 6 * SCALE - SCALE }
}

/// Draws `s` with its top-left corner at `(x, y)` in the built-in font.
fn text<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    s: &str,
    x: i32,
    y: i32,
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (i, c) in s.chars().enumerate() {
        let rows = glyph(c);
        let gx = x + i as i32 * 6 * SCALE;
        for (r, bits) in rows.iter().enumerate() {
            for col in 0..5 {
                if bits & (0x10 >> col) != 0 {
                    let px = gx + col * SCALE;
                    let py = y + r as i32 * SCALE;
                    root.draw(&Rectangle::new(
                        [(px, py), (px + SCALE - 1, py + SCALE - 1)],
                        color.filled(),
                    ))?;
                }
            }
        }
    }
    Ok(())
}

/// The 5x7 bitmap of a character (bit 4 is the leftmost column). Lower-case
/// letters are drawn as capitals; unknown characters as `?`.
fn glyph(c: char) -> [u8; 7] {
    match c.to_ascii_uppercase() {
        '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        '9' => [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        'A' => [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'B' => [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        'C' => [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E],
        'D' => [0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C],
        'E' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F],
        'F' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        'G' => [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F],
        'H' => [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'I' => [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
        'J' => [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        'K' => [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11],
        'L' => [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        'M' => [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11],
        'N' => [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        'O' => [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'P' => [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        'Q' => [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D],
        'R' => [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        'S' => [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E],
        'T' => [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        'U' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'V' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        'W' => [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A],
        'X' => [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        'Y' => [0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04],
        'Z' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        ' ' => [0; 7],
        '-' => [0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00],
        '+' => [0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00],
        '.' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
        ',' => [0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08],
        ':' => [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00],
        '=' => [0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00],
        '/' => [0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00],
        '_' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F],
        '(' => [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ')' => [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08],
        '@' => [0x0E, 0x11, 0x01, 0x0D, 0x15, 0x15, 0x0E],
        '%' => [0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03],
        _ => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Vec<PlotPoint>, Vec<ReferenceLine>) {
        let points = vec![
            PlotPoint {
                steps: 0,
                elo: -20.0,
                ci95: 40.0,
            },
            PlotPoint {
                steps: 5000,
                elo: 150.0,
                ci95: 35.0,
            },
            PlotPoint {
                steps: 10000,
                elo: 260.0,
                ci95: 30.0,
            },
        ];
        let refs = vec![
            ReferenceLine {
                name: "random".into(),
                elo: 0.0,
            },
            ReferenceLine {
                name: "ab:depth=4".into(),
                elo: 300.0,
            },
        ];
        (points, refs)
    }

    /// Counts pixels of one colour in a rectangle of an RGB buffer.
    fn count(buf: &[u8], width: u32, rect: (u32, u32, u32, u32), rgb: (u8, u8, u8)) -> usize {
        let (x0, y0, x1, y1) = rect;
        let mut n = 0;
        for y in y0..y1 {
            for x in x0..x1 {
                let i = ((y * width + x) * 3) as usize;
                if (buf[i], buf[i + 1], buf[i + 2]) == rgb {
                    n += 1;
                }
            }
        }
        n
    }

    #[test]
    fn draws_labels_without_fonts_and_the_series() {
        let (points, refs) = sample();
        let (w, h) = PLOT_SIZE;
        let mut buf = vec![0u8; (w * h * 3) as usize];
        render_elo_plot(&mut buf, (w, h), "run a", &points, &refs).unwrap();
        // Tick labels below the x axis and left of the y axis are inked.
        assert!(count(&buf, w, (60, h - 70, w - 190, h - 40), (30, 30, 30)) > 100);
        assert!(count(&buf, w, (0, 50, 85, h - 70), (30, 30, 30)) > 100);
        // The series (blue) and the reference labels (orange) are drawn.
        assert!(count(&buf, w, (90, 50, w - 190, h - 70), (30, 80, 200)) > 200);
        assert!(count(&buf, w, (w - 190, 0, w, h), (200, 90, 40)) > 50);
    }

    #[test]
    fn writes_a_png_file() {
        let (points, refs) = sample();
        let dir = std::env::temp_dir().join(format!("arena-plot-{}", std::process::id()));
        let path = dir.join("elo.png");
        write_elo_plot(&path, "run a", &points, &refs).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR: width and height, big-endian, at bytes 16..24.
        let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((w, h), PLOT_SIZE);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        assert!(matches!(
            write_elo_plot(&path, "x", &[], &refs),
            Err(PlotError::Empty)
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 10.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let t = ticks(-37.0, 412.0, 8);
        assert_eq!(t.first(), Some(&0.0));
        assert_eq!(t.last(), Some(&400.0));
        assert_eq!(format_steps(120000.0), "120k");
        assert_eq!(format_steps(2500000.0), "2.5M");
    }
}
