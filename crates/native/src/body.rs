//! The body of a [`crate::Response`]: bytes in memory (a slice of the embedded site, decoded or
//! assembled bytes, a small stored object read whole), or a large stored object streamed from
//! its file in chunks as the client takes them ([`Body::streamed`]), so that a 4 GiB file in the
//! store costs a few chunks of memory, not 4 GiB.

use bytes::Bytes;
use http_body::{Frame, SizeHint};
use http_body_util::Full;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// A response body (hyper's `http_body::Body`).
#[derive(Debug)]
pub struct Body(Inner);

#[derive(Debug)]
enum Inner {
    Full(Full<Bytes>),
    Streamed {
        chunks: mpsc::Receiver<std::io::Result<Bytes>>,
        /// The bytes still to come: a stream that ends before is an error, so the transfer
        /// breaks rather than end short of its Content-Length.
        left: u64,
    },
}

impl Body {
    /// `length` bytes that arrive in `chunks` (an error among them ends the body with it).
    pub(crate) fn streamed(chunks: mpsc::Receiver<std::io::Result<Bytes>>, length: u64) -> Body {
        Body(Inner::Streamed {
            chunks,
            left: length,
        })
    }
}

impl From<Bytes> for Body {
    fn from(bytes: Bytes) -> Body {
        Body(Inner::Full(Full::new(bytes)))
    }
}

impl From<Full<Bytes>> for Body {
    fn from(full: Full<Bytes>) -> Body {
        Body(Inner::Full(full))
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        match &mut self.get_mut().0 {
            Inner::Full(full) => Pin::new(full)
                .poll_frame(cx)
                .map_err(|never| match never {}),
            Inner::Streamed { chunks, left } => match chunks.poll_recv(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Some(Ok(chunk))) => {
                    *left = left.saturating_sub(chunk.len() as u64);
                    Poll::Ready(Some(Ok(Frame::data(chunk))))
                }
                Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(error))),
                Poll::Ready(None) if *left > 0 => Poll::Ready(Some(Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "a stored object ended before its length",
                )))),
                Poll::Ready(None) => Poll::Ready(None),
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.0 {
            Inner::Full(full) => full.is_end_stream(),
            Inner::Streamed { left, .. } => *left == 0,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.0 {
            Inner::Full(full) => full.size_hint(),
            Inner::Streamed { left, .. } => SizeHint::with_exact(*left),
        }
    }
}
