//! The engine's search answers in Hub form: `info` and `done` lines.

use super::notation::format_move;
use super::syntax::Line;
use shashki_rules::{Move, Position};
use shashki_search::{Score, SearchReport};

/// Hub scores are in men; a won game is 100 men less a hundredth per ply
/// to the end, the way Scan (and pydraughts, which reads anything above 90
/// men as a win in so many moves) writes it.
const WIN_MEN: f64 = 100.0;

/// A tablebase result is decisive but its distance is not one to the end
/// of the game, so it stays below pydraughts' band of wins.
const TB_WIN_MEN: f64 = 80.0;

/// `info depth=.. score=.. nodes=.. time=.. nps=.. pv=".."` for a report.
/// Scores are from the side to move's view, in men. MCTS values (expected
/// result in [-1, 1]) have no men equivalent and go in `value=` instead;
/// tablebase results add `tb=win|loss|draw` and `tb-plies=N`.
pub fn info_line(report: &SearchReport) -> Line {
    let mut line = Line::new("info").with("depth", report.depth);
    line = match report.score {
        Score::Centi(cp) => line.with("score", format!("{:.2}", f64::from(cp) / 100.0)),
        Score::Mate(plies) => {
            let men = WIN_MEN - f64::from(plies.unsigned_abs().min(9999)) / 100.0;
            line.with("score", format!("{:.2}", men.copysign(f64::from(plies))))
        }
        Score::Value(v) => line.with("value", format!("{v:.3}")),
        Score::ProvenDraw => line.with("score", "0.00"),
        Score::TbWin(plies) | Score::TbLoss(plies) => {
            let won = matches!(report.score, Score::TbWin(_));
            let men = TB_WIN_MEN - f64::from(plies.min(999)) / 100.0;
            line.with("score", format!("{:.2}", if won { men } else { -men }))
                .with("tb", if won { "win" } else { "loss" })
                .with("tb-plies", plies)
        }
        Score::TbDraw => line.with("score", "0.00").with("tb", "draw"),
    };
    let seconds = report.elapsed.as_secs_f64();
    let mnps = if seconds > 0.0 {
        report.nodes as f64 / seconds / 1e6
    } else {
        0.0
    };
    line = line
        .with("nodes", report.nodes)
        .with("time", format!("{seconds:.3}"))
        .with("nps", format!("{mnps:.3}"));
    if !report.pv.is_empty() {
        let pv: Vec<String> = report.pv.iter().map(format_move).collect();
        line = line.with("pv", pv.join(" "));
    }
    line
}

/// `done move=<best> ponder=<expected reply>`: the reply is the second move
/// of the line when it is legal after the best move. `done` alone when
/// there is no move (no legal move, or no position to search).
pub fn done_line(position: Option<&Position>, best: Option<Move>, pv: &[Move]) -> Line {
    let mut line = Line::new("done");
    let (Some(position), Some(best)) = (position, best) else {
        return line;
    };
    line = line.with("move", format_move(&best));
    let after = position.make_move(&best);
    if let [first, reply, ..] = pv
        && first.key() == best.key()
        && after.legal_moves().iter().any(|m| m.key() == reply.key())
    {
        line = line.with("ponder", format_move(reply));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn report(score: Score) -> SearchReport {
        let start = Position::startpos();
        let first = start.parse_move("c3-d4").unwrap();
        let reply = start.make_move(&first).parse_move("f6-g5").unwrap();
        SearchReport {
            best_move: Some(first),
            score,
            depth: 7,
            nodes: 2_000_000,
            elapsed: Duration::from_millis(500),
            pv: vec![first, reply],
        }
    }

    #[test]
    fn info_lines_carry_scores_in_men_and_the_line_in_hub_moves() {
        assert_eq!(
            info_line(&report(Score::Centi(-35))).to_string(),
            "info depth=7 score=-0.35 nodes=2000000 time=0.500 nps=4.000 pv=\"10-14 23-20\""
        );
        let score = |s| info_line(&report(s)).value("score").map(str::to_string);
        assert_eq!(score(Score::Mate(7)).as_deref(), Some("99.93"));
        assert_eq!(score(Score::Mate(-4)).as_deref(), Some("-99.96"));
        assert_eq!(score(Score::ProvenDraw).as_deref(), Some("0.00"));
        assert_eq!(score(Score::Value(0.25)), None);
        let mcts = info_line(&report(Score::Value(0.25)));
        assert_eq!(mcts.value("value"), Some("0.250"));
        let tb = info_line(&report(Score::TbLoss(12)));
        assert_eq!(
            (tb.value("score"), tb.value("tb"), tb.value("tb-plies")),
            (Some("-79.88"), Some("loss"), Some("12"))
        );
    }

    #[test]
    fn done_names_the_move_and_a_legal_reply() {
        let r = report(Score::Centi(0));
        let start = Position::startpos();
        assert_eq!(
            done_line(Some(&start), r.best_move, &r.pv).to_string(),
            "done move=10-14 ponder=23-20"
        );
        assert_eq!(
            done_line(Some(&start), r.best_move, &r.pv[..1]).to_string(),
            "done move=10-14"
        );
        // A line that does not start with the move gives no reply.
        let other = start.parse_move("a3-b4").unwrap();
        assert_eq!(
            done_line(Some(&start), Some(other), &r.pv).to_string(),
            "done move=9-13"
        );
        assert_eq!(done_line(None, None, &[]).to_string(), "done");
    }
}
