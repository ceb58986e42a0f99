//! Core's vocabulary: the closed lists every other module and every wire shape names, at the bottom of the
//! crate.
//!
//! | word | what it says |
//! |---|---|
//! | [`Origin`] | who is asking (Hermes, the shortcut, a person, a review accept) |
//! | [`Tool`], [`ToolSpec`], [`ToolRisk`], [`SelectionEffect`] | the tools and their fixed facts |
//! | [`Risk`] | how risky a planned write is |
//! | [`Intent`], [`ReasonCode`] | what the router understood a prompt to be, and why it goes to Hermes |
//! | [`State`], [`Action`] | where a review session is, and what moves it |
//! | [`ReviewMode`], [`Profile`], [`ToolsPolicy`] | how much review a workspace wants, and its tool switches |
//!
//! Which one should I use? Name these from here inside core; the adapters may keep the older paths
//! (`executor::Origin`, `manifest::Tool`, `ops::Risk`, `route::Intent`, `review::State`, `profile::…`),
//! which re-export them. The rules that read the words live with their modules: the review rule in
//! [`crate::policy`], the session machine in [`crate::review`], the descriptions and schemas of the tools in
//! [`crate::manifest`].
//!
//! This module imports nothing of core (only `alloc`, `core` and serde), so the wire shapes
//! ([`crate::wire`]) and the modules that fill them in can all depend on it without depending on each
//! other: `scripts/module-cycles` checks that core's modules form no cycle.

mod origin;
mod profile;
mod review;
mod route;
mod tool;

pub use origin::Origin;
pub use profile::{Profile, ReviewMode, ToolsPolicy};
pub use review::{Action, State};
pub use route::{Intent, ReasonCode};
pub use tool::{Risk, SelectionEffect, Tool, ToolRisk, ToolSpec};
