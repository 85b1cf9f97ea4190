//! Test hooks: points in a push where a test can make railyard die abruptly, as a laptop losing
//! power would (`RAILYARD_TEST_DIE_AT=<point>` exits with status 137 when the point is reached).
//! Compiled only with the `test-hooks` cargo feature, which the test suite enables
//! (`scripts/test.sh`); a release build has neither the variable nor the exit.
//!
//! Points: `commit-sent` (a device accepted its confirmed commit; the journal does not know yet)
//! and `committed` (the journal recorded it).

/// Die here if the test asked for it.
#[cfg(feature = "test-hooks")]
pub(super) fn reached(point: &str) {
    if std::env::var("RAILYARD_TEST_DIE_AT").is_ok_and(|p| p == point) {
        std::process::exit(137);
    }
}

#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub(super) fn reached(_point: &str) {}
