//! Checking: resolve each claim's path in its census result, parse the stated text,
//! compare exactly, and turn every disagreement into a diagnostic.

pub mod forms;
pub mod rational;
pub mod words;
