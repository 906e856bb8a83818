//! Server-Timing (W3C Server Timing): how long an answer's phases took, against a clock the
//! caller passes (the core has none).

use crate::decision::{decide_marked, Marks};
use crate::lookup::Scratch;
use crate::render::render;
use crate::request::RequestHead;
use crate::response::Response;
use crate::site::Site;

/// The durations of one answer's phases, in nanoseconds of the clock given to
/// [`respond_timed`]: sent as `Server-Timing`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerTiming {
    /// Normalizing the path and finding its route or `_redirects` rule.
    pub lookup_ns: u64,
    /// Choosing the representation (0 when none was chosen, e.g. a redirect or a 404).
    pub negotiation_ns: u64,
    /// The whole answer: deciding and rendering.
    pub total_ns: u64,
}

struct ClockMarks<F: FnMut() -> u64> {
    clock: F,
    lookup: Option<u64>,
    negotiation: Option<u64>,
}

impl<F: FnMut() -> u64> Marks for ClockMarks<F> {
    fn lookup_done(&mut self) {
        self.lookup = Some((self.clock)());
    }
    fn negotiation_done(&mut self) {
        self.negotiation = Some((self.clock)());
    }
}

/// [`crate::respond_into`], timed by `clock` (any monotonic nanosecond counter), with a
/// `Server-Timing: lookup;dur=.., negotiation;dur=.., total;dur=..` field (milliseconds).
/// Allocates nothing.
pub fn respond_timed<'a>(
    site: &'a Site<'a>,
    request: &RequestHead<'_>,
    response: &mut Response<'a>,
    clock: impl FnMut() -> u64,
) -> ServerTiming {
    let mut marks = ClockMarks {
        clock,
        lookup: None,
        negotiation: None,
    };
    let start = (marks.clock)();
    let mut scratch = Scratch::new();
    let decision = decide_marked(site, request, &mut scratch, &mut marks);
    render(&decision, response);
    let end = (marks.clock)();
    let lookup = marks.lookup.unwrap_or(end);
    let timing = ServerTiming {
        lookup_ns: lookup.saturating_sub(start),
        negotiation_ns: marks.negotiation.map_or(0, |n| n.saturating_sub(lookup)),
        total_ns: end.saturating_sub(start),
    };
    response
        .fields
        .push_server_timing(timing.lookup_ns, timing.negotiation_ns, timing.total_ns);
    timing
}
