//! The run's progress as an SVG chart: losses per iteration, the evaluation Elo, and the
//! net's mean points in the evaluation (the figure that moves in a margin game whose
//! evaluations are nearly all won or all lost).

use crate::metrics::IterationMetrics;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One evaluation figure over the iterations: a dot per evaluation and a moving average over
/// five (single evaluations are small matches). The y range covers at least ±`span`.
fn evaluation_chart<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, caption: &str, evals: &[(u64, f64)], last: u64, span: f64) {
    let (lo, hi) = evals.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &(_, e)| (lo.min(e), hi.max(e)));
    let (lo, hi) = if evals.is_empty() { (-span, span) } else { (lo.min(hi - span), hi.max(lo + span)) };
    let pad = (hi - lo) * 0.1;
    let Ok(mut chart) = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0u64..last, (lo - pad)..(hi + pad))
    else {
        return;
    };
    let _ = chart.configure_mesh().x_desc("iteration").draw();
    let _ = chart.draw_series(evals.iter().map(|&p| Circle::new(p, 2, GREEN.filled())));
    let smooth: Vec<(u64, f64)> = (0..evals.len())
        .map(|i| {
            let window = &evals[i.saturating_sub(4)..=i];
            (evals[i].0, window.iter().map(|e| e.1).sum::<f64>() / window.len() as f64)
        })
        .collect();
    let _ = chart.draw_series(LineSeries::new(smooth, BLACK.stroke_width(2)));
}

/// The run's charts; `planned` iterations in all (0: until stopped) set the iteration axis, so
/// the charts show how much of the run is done.
pub fn progress_svg(history: &[IterationMetrics], planned: u64) -> String {
    let mut svg = String::new();
    {
        // Distributed runs get a fourth panel: the games of each iteration by worker.
        let distributed = history.iter().any(|m| !m.games_by_source.is_empty());
        let root = SVGBackend::with_string(&mut svg, (900, if distributed { 1120 } else { 840 })).into_drawing_area();
        let _ = root.fill(&WHITE);
        let (top, rest) = root.split_vertically(300);
        let (bottom, rest) = rest.split_vertically(280);
        let (points_area, workers_area) = rest.split_vertically(280);
        let done = history.last().map_or(0, |m| m.iteration);
        let last = done.max(planned).max(1);
        // Where the run stands: iterations done of those planned, the schedule's learning rate.
        let standing = match (history.last(), planned) {
            (None, _) => String::new(),
            (Some(m), 0) => format!(" (iteration {done}, learning rate {:.1e})", m.learning_rate),
            (Some(m), _) => format!(" (iteration {done} of {planned}, learning rate {:.1e})", m.learning_rate),
        };
        let max_loss = history.iter().map(|m| m.policy_loss.max(m.value_loss).max(m.aux_loss)).fold(0.1f32, f32::max) * 1.1;
        if let Ok(mut chart) = ChartBuilder::on(&top)
            .caption(format!("training losses{standing}"), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0u64..last, 0f32..max_loss)
        {
            let _ = chart.configure_mesh().x_desc("iteration").draw();
            let trained = || history.iter().filter(|m| m.train_steps > 0);
            if let Ok(series) = chart.draw_series(LineSeries::new(trained().map(|m| (m.iteration, m.policy_loss)), &BLUE)) {
                series.label("policy").legend(|(x, y)| PathElement::new([(x, y), (x + 15, y)], BLUE));
            }
            if let Ok(series) = chart.draw_series(LineSeries::new(trained().map(|m| (m.iteration, m.value_loss)), &RED)) {
                series.label("value").legend(|(x, y)| PathElement::new([(x, y), (x + 15, y)], RED));
            }
            if trained().any(|m| m.aux_loss > 0.0) {
                if let Ok(series) = chart.draw_series(LineSeries::new(trained().map(|m| (m.iteration, m.aux_loss)), &MAGENTA)) {
                    series.label("auxiliary").legend(|(x, y)| PathElement::new([(x, y), (x + 15, y)], MAGENTA));
                }
            }
            let _ = chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw();
        }
        let elo: Vec<(u64, f64)> = history.iter().filter_map(|m| m.eval_elo.map(|e| (m.iteration, e))).collect();
        evaluation_chart(&bottom, "Elo against the evaluation opponent (dots: each evaluation; line: mean of 5)", &elo, last, 100.0);
        let points: Vec<(u64, f64)> = history.iter().filter_map(|m| m.eval_points.map(|p| (m.iteration, p))).collect();
        evaluation_chart(&points_area, "the net's mean points in the evaluation (line: mean of 5)", &points, last, 1.0);
        if distributed {
            games_by_source_chart(&workers_area, history, last);
        }
        let _ = root.present();
    }
    svg
}

/// Games per iteration from each source (`local`: the trainer's threads; the others: workers).
fn games_by_source_chart<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, history: &[IterationMetrics], last: u64) {
    let sources: std::collections::BTreeSet<&String> = history.iter().flat_map(|m| m.games_by_source.keys()).collect();
    let most = history.iter().flat_map(|m| m.games_by_source.values()).copied().max().unwrap_or(1).max(1);
    let Ok(mut chart) = ChartBuilder::on(area)
        .caption("self-play games per iteration, by worker", ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0u64..last, 0u64..most + most / 10 + 1)
    else {
        return;
    };
    let _ = chart.configure_mesh().x_desc("iteration").draw();
    for (i, source) in sources.iter().enumerate() {
        let colour = Palette99::pick(i).to_rgba();
        let points = history.iter().map(|m| (m.iteration, m.games_by_source.get(*source).copied().unwrap_or(0)));
        if let Ok(series) = chart.draw_series(LineSeries::new(points, colour.stroke_width(2))) {
            series.label(source.as_str()).legend(move |(x, y)| PathElement::new([(x, y), (x + 15, y)], colour));
        }
    }
    let _ = chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_distributed_run_shows_its_workers() {
        let metrics = |iteration, sources: &[(&str, u64)]| IterationMetrics {
            iteration,
            games_by_source: sources.iter().map(|(s, n)| (s.to_string(), *n)).collect(),
            ..IterationMetrics::default()
        };
        let single = progress_svg(&[metrics(1, &[]), metrics(2, &[])], 0);
        assert!(!single.contains("by worker"));
        let svg = progress_svg(&[metrics(1, &[("local", 10), ("box1-77-abc", 30)]), metrics(2, &[("box1-77-abc", 40), ("box2-12-def", 8)])], 0);
        for text in ["by worker", "local", "box1-77-abc", "box2-12-def"] {
            assert!(svg.contains(text), "{text}");
        }
    }

    #[test]
    fn the_charts_say_how_much_of_the_planned_run_is_done() {
        let history = [IterationMetrics { iteration: 7, learning_rate: 5e-4, ..IterationMetrics::default() }];
        let planned = progress_svg(&history, 40);
        assert!(planned.contains("iteration 7 of 40, learning rate 5.0e-4"), "{planned}");
        // The loss chart's iteration axis (its labels at y = 270) runs to the plan's end.
        let last_iteration_label = |svg: &str| {
            let lines: Vec<&str> = svg.lines().collect();
            lines.windows(2).filter(|w| w[0].starts_with("<text") && w[0].contains(r#"y="270""#)).filter_map(|w| w[1].trim().parse::<u64>().ok()).max()
        };
        assert!(last_iteration_label(&planned).is_some_and(|l| l >= 35), "{:?}", last_iteration_label(&planned));
        let open = progress_svg(&history, 0);
        assert!(open.contains("iteration 7, learning rate 5.0e-4"));
        assert!(!open.contains("iteration 7 of"));
        assert!(last_iteration_label(&open).is_some_and(|l| l <= 7), "{:?}", last_iteration_label(&open));
    }
}
