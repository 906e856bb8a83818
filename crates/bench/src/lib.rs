//! edgesite's micro-benchmarks live in `benches/` (`make bench`); this library is empty.
