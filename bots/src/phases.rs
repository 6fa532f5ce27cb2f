//! An agent per phase of a game: a module of its own, so that only the bots that use it carry it
//! (a CodinGame bot's every character counts).

use crate::agent::Agent;
use crate::game::{Action, Game};
use std::time::Instant;

/// An agent for the opening phase of a game (a setup) and optionally another for the rest,
/// with a pace of its own ([`Agent::pace`]: `pace(state)` even shares of a whole-game clock
/// for the move at `state`, a setup's placements less than a move). Both are told every action.
pub struct Phases<G: Game> {
    pub opening: Box<dyn Agent<G>>,
    pub rest: Option<Box<dyn Agent<G>>>,
    pub in_opening: fn(&G) -> bool,
    pub pace: fn(&G) -> f64,
    /// Whether the last decision was the opening agent's.
    pub opened: bool,
}

impl<G: Game> Phases<G> {
    fn last(&self) -> &dyn Agent<G> {
        match &self.rest {
            Some(rest) if !self.opened => &**rest,
            _ => &*self.opening,
        }
    }
}

impl<G: Game> Agent<G> for Phases<G> {
    fn choose(&mut self, state: &G, deadline: Option<Instant>) -> Action {
        self.opened = (self.in_opening)(state);
        match &mut self.rest {
            Some(rest) if !self.opened => rest.choose(state, deadline),
            _ => self.opening.choose(state, deadline),
        }
    }
    fn observe(&mut self, action: Action) {
        self.opening.observe(action);
        if let Some(rest) = &mut self.rest {
            rest.observe(action);
        }
    }
    fn last_report(&self) -> String {
        self.last().last_report()
    }
    fn last_playouts(&self) -> Option<u64> {
        self.last().last_playouts()
    }
    fn proved_win(&self) -> bool {
        self.last().proved_win()
    }
    fn pace(&self, state: &G) -> f64 {
        (self.pace)(state)
    }
}
