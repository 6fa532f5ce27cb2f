//! The classic (net-free) BlackHole bot: placeholder until its search lands.

use super::BlackHole;
use crate::classic::Classic;

impl Classic for BlackHole {}
