//! The mathematics: game positions, moves, Grundy values, closed forms and solvers.
//!
//! Architecture invariant: nothing under `games/` does I/O, knows an essay exists, or
//! depends on serde. Each game is one module; fast methods and their plain-recursion
//! twins are separate functions sharing no memo and no move generator.

#![forbid(unsafe_code)]

pub mod count;
pub mod held_pass;
pub mod impartial;
pub mod moore;
pub mod nim;
pub mod sylver;
pub mod welter;
