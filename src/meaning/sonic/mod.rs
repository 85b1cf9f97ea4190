//! SONiC: the facts its configs state (its lines are compared in the form `tree.rs` flattens CONFIG_DB to).

pub mod facts;
