//! An external player program: spawned, fed lines, read with a time limit, killed at the end.
//! The transcript of everything exchanged can be kept for records and tests.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How to start a player: a program and its arguments (a shell command goes through `sh -c`).
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerCommand {
    /// Short name for reports.
    pub label: String,
    pub program: String,
    pub args: Vec<String>,
}

impl PlayerCommand {
    /// A command line run by the shell; `exec` so that killing the player kills the program.
    pub fn shell(command_line: &str) -> Self {
        PlayerCommand {
            label: command_line.to_string(),
            program: "sh".into(),
            args: vec!["-c".into(), format!("exec {command_line}")],
        }
    }
}

/// Why a player lost without the rules deciding it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FaultKind {
    Timeout,
    Crash,
    Illegal,
    Garbled,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fault {
    pub kind: FaultKind,
    pub detail: String,
}

const STDERR_TAIL: usize = 2048;

pub struct PlayerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    /// `> ` lines sent, `< ` lines received, when recording.
    transcript: Option<Vec<String>>,
    pub timing: ResponseTiming,
}

/// How long a player took to answer, for limits per turn (first and later) and per game.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResponseTiming {
    pub answers: u32,
    pub first: Duration,
    pub slowest_later: Duration,
    pub total: Duration,
}

impl ResponseTiming {
    fn record(&mut self, took: Duration) {
        if self.answers == 0 {
            self.first = took;
        } else {
            self.slowest_later = self.slowest_later.max(took);
        }
        self.answers += 1;
        self.total += took;
    }
}

impl PlayerProcess {
    pub fn spawn(command: &PlayerCommand, record: bool) -> Result<Self, String> {
        let mut child = Command::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {:?}: {e}", command.label))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let mut stderr = child.stderr.take().expect("piped stderr");
        let tail = Arc::clone(&stderr_tail);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut t = tail.lock().unwrap();
                t.extend_from_slice(&buf[..n]);
                let excess = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..excess);
            }
        });
        Ok(PlayerProcess {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr_tail,
            transcript: record.then(Vec::new),
            timing: ResponseTiming::default(),
        })
    }

    /// Sends lines (each ending in a newline). A player that has closed its input is not at
    /// fault yet: it may still have answered; the following read decides.
    pub fn send(&mut self, text: &str) {
        if let Some(t) = &mut self.transcript {
            t.extend(text.lines().map(|l| format!("> {l}")));
        }
        let ok = match &mut self.stdin {
            Some(stdin) => stdin.write_all(text.as_bytes()).and_then(|_| stdin.flush()).is_ok(),
            None => false,
        };
        if !ok {
            self.stdin = None;
        }
    }

    /// Waits for one line for at most `limit` (measured from this call, right after `send`).
    pub fn receive(&mut self, limit: Duration) -> Result<String, Fault> {
        let start = Instant::now();
        let result = self.lines.recv_timeout(limit);
        match result {
            Ok(line) => {
                self.timing.record(start.elapsed());
                if let Some(t) = &mut self.transcript {
                    t.push(format!("< {line}"));
                }
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(Fault {
                kind: FaultKind::Timeout,
                detail: format!("no answer within {} ms", limit.as_millis()),
            }),
            Err(RecvTimeoutError::Disconnected) => {
                // Give the process a moment to report its exit status and last words.
                std::thread::sleep(Duration::from_millis(20));
                let status = self.child.try_wait().ok().flatten().map(|s| s.to_string()).unwrap_or_else(|| "output closed".into());
                let last_words = self.stderr_last_line();
                let detail = if last_words.is_empty() { status } else { format!("{status}; stderr: {last_words}") };
                Err(Fault { kind: FaultKind::Crash, detail })
            }
        }
    }

    fn stderr_last_line(&self) -> String {
        let tail = self.stderr_tail.lock().unwrap();
        String::from_utf8_lossy(&tail).lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()
    }

    pub fn take_transcript(&mut self) -> Vec<String> {
        self.transcript.take().unwrap_or_default()
    }
}

impl Drop for PlayerProcess {
    fn drop(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
