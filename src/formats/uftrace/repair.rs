//! Repairs of uftrace recordings (`tracelint fix`).

use crate::formats::spec::Subject;
use crate::ledger::{RepairOptions, Verdict};
use crate::options::CheckOptions;

/// The repair entry of the format table.
pub fn repair(_subject: Subject<'_>, _opts: &CheckOptions, _ropts: &RepairOptions) -> Verdict {
    Verdict::Healthy
}
