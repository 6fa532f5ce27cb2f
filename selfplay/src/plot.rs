//! The run's progress as an SVG chart: losses per iteration, and the evaluation Elo.

use crate::train::IterationMetrics;
use plotters::prelude::*;

pub fn progress_svg(history: &[IterationMetrics]) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 600)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let (top, bottom) = root.split_vertically(300);
        let last = history.last().map_or(1, |m| m.iteration.max(1));
        let max_loss = history.iter().map(|m| m.policy_loss.max(m.value_loss)).fold(0.1f32, f32::max) * 1.1;
        if let Ok(mut chart) = ChartBuilder::on(&top)
            .caption("training losses", ("sans-serif", 18))
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
            let _ = chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw();
        }
        let evals: Vec<(u64, f64)> = history.iter().filter_map(|m| m.eval_elo.map(|e| (m.iteration, e))).collect();
        let (lo, hi) = evals.iter().fold((-100.0f64, 100.0f64), |(lo, hi), &(_, e)| (lo.min(e), hi.max(e)));
        if let Ok(mut chart) = ChartBuilder::on(&bottom)
            .caption("Elo against the evaluation opponent (dots: each evaluation; line: mean of 5)", ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0u64..last, (lo - 20.0)..(hi + 20.0))
        {
            let _ = chart.configure_mesh().x_desc("iteration").draw();
            let _ = chart.draw_series(evals.iter().map(|&p| Circle::new(p, 2, GREEN.filled())));
            // A moving average over five evaluations: single evaluations are small matches.
            let smooth: Vec<(u64, f64)> = (0..evals.len())
                .map(|i| {
                    let window = &evals[i.saturating_sub(4)..=i];
                    (evals[i].0, window.iter().map(|e| e.1).sum::<f64>() / window.len() as f64)
                })
                .collect();
            let _ = chart.draw_series(LineSeries::new(smooth, BLACK.stroke_width(2)));
        }
        let _ = root.present();
    }
    svg
}
