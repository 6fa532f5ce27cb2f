//! The classic (net-free) Zuniq bot: placeholder until its search lands.

use super::Zuniq;
use crate::classic::Classic;

impl Classic for Zuniq {}
