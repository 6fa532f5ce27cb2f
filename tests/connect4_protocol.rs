//! Recorded CodinGame transcripts replayed through the referee's encoder and through the bot,
//! and garbage fed to the bot.

mod common;

use bots::connect4::Connect4;
use bots::game::{ActionList, Game};
use common::{assert_clean_error, data, read_transcript, run};
use bots::connect4::referee::turn_input;
use bots::referee::RefereeRules;

const GAMES: [&str; 2] = ["plain", "steal"];

/// Replays both seats' answers and checks that the referee sends, turn by turn, exactly the
/// text each seat recorded.
#[test]
fn referee_input_matches_the_recorded_transcripts() {
    for game in GAMES {
        let seats = [0, 1].map(|s| read_transcript(&data(&format!("connect4/{game}-seat{s}.txt"))));
        let mut next_turn = [0usize; 2];
        let mut state = Connect4::new();
        let mut previous = None;
        let mut saw_steal = false;
        while !state.is_terminal() {
            let seat = state.to_move();
            let k = next_turn[seat];
            let expected = seats[seat].turns[k].join("\n") + "\n";
            assert_eq!(turn_input(&state, k == 0, previous), expected, "{game}: seat {seat} turn {}", state.turn());
            let action = state.parse_answer(&seats[seat].answers[k]).expect("recorded answer is legal").actions[0];
            saw_steal |= action == bots::connect4::STEAL;
            state.apply(action);
            previous = Some(action);
            next_turn[seat] += 1;
        }
        assert_eq!(next_turn, [seats[0].answers.len(), seats[1].answers.len()], "{game}: every recorded turn replayed");
        assert_eq!(saw_steal, game == "steal");
    }
}

/// Feeds each seat's recorded input to the bot. Its own answers differ from the recorded ones,
/// so from its second turn on the boards are not the game it played: it must follow the board
/// it is given and answer every turn with one legal action.
#[test]
fn bot_answers_every_recorded_turn_with_a_legal_action() {
    for game in GAMES {
        for seat in 0..2 {
            let transcript = read_transcript(&data(&format!("connect4/{game}-seat{seat}.txt")));
            let input: String = transcript.turns.iter().flatten().map(|l| format!("{l}\n")).collect();
            let out = run(&["play", "connect4", "--playouts", "300", "--quiet", "--seed", "7"], &input);
            let stdout = String::from_utf8(out.stdout.clone()).unwrap();
            assert!(out.status.success(), "{game} seat {seat}: {}", String::from_utf8_lossy(&out.stderr));
            let answers: Vec<&str> = stdout.lines().collect();
            assert_eq!(answers.len(), transcript.turns.len(), "{game} seat {seat}: one line per turn");
            for (turn, answer) in transcript.turns.iter().zip(&answers) {
                // The block is: [ids,] turnIndex, 7 rows, n, actions..., previous.
                let body = if turn[0].contains(' ') { &turn[1..] } else { &turn[..] };
                let index: usize = body[0].parse().unwrap();
                let rows: Vec<&str> = body[1..8].iter().map(String::as_str).collect();
                let state = Connect4::from_rows(&rows, index).unwrap();
                let action = Connect4::parse_action(answer).unwrap_or_else(|e| panic!("{e}"));
                let mut legal = ActionList::new();
                state.legal_actions(&mut legal);
                assert!(legal.contains(action), "{game} seat {seat} turn {index}: {answer} is illegal");
            }
        }
    }
}

#[test]
fn bot_takes_a_win_when_offered() {
    // Seat 0 to move at turn 6 owns columns 3-5 of the bottom row, seat 1 owns 6-8: only
    // column 2 wins.
    let board = ".........\n.........\n.........\n.........\n.........\n.........\n...000111\n";
    let input = format!("0 1\n6\n{board}9\n0\n1\n2\n3\n4\n5\n6\n7\n8\n6\n");
    let out = run(&["play", "connect4", "--playouts", "2000", "--quiet"], &input);
    let answer = String::from_utf8(out.stdout).unwrap();
    assert_eq!(answer.trim(), "2", "expected the winning column; stderr: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn garbage_input_gets_one_clean_error_line() {
    let empty = ".........\n".repeat(7);
    let cases: Vec<(String, &str)> = vec![
        ("hello\n".into(), "myId oppId"),
        ("0 1\nzero\n".into(), "turnIndex"),
        (format!("0 1\n0\n{}", ".........\n".repeat(3)), "input ended"),
        (format!("0 1\n0\n{}9\n0\n1\n2\n3\n4\n5\n6\n7\n8\n-1\n", ".......x.\n".repeat(7)), "bad board"),
        (format!("0 1\n0\n{empty}3\n0\n1\n2\n-1\n"), "do not match the game"),
        (format!("1 0\n0\n{empty}9\n0\n1\n2\n3\n4\n5\n6\n7\n8\n-1\n"), "not our turn: we are player 1"),
        ("\u{0}\u{1}\u{2}binary\n".into(), "myId oppId"),
    ];
    for (input, fragment) in cases {
        let out = run(&["play", "connect4", "--quiet", "--playouts", "10"], &input);
        assert_clean_error(&out, fragment);
    }
}

#[test]
fn bad_arguments_get_one_clean_error_line() {
    assert_clean_error(&run(&["play", "connect4", "--margin-frac", "1.5"], ""), "--margin-frac");
    assert_clean_error(&run(&["play", "connect4", "--playouts", "0"], ""), "--playouts");
    assert_clean_error(&run(&["perft", "connect4", "--moves", "4 STEAL STEAL"], ""), "illegal");
    assert_clean_error(&run(&["judge", "connect4", "--games", "0"], ""), "--games");
    assert_clean_error(&run(&["arena", "connect4", "--a", "random", "--b", "random", "--c-puct", "0"], ""), "--c-puct");
}
