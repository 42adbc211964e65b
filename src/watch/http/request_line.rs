//! 414 for an over-long request line. hyper reads a request head into one buffer of at
//! most [`super::HEAD_MAX`] bytes and answers 431 when it fills, whatever filled it; it
//! answers 414 only for a target over 64 KiB that still fits the buffer. So a long target
//! is caught before hyper sees it: [`LineLimit`] wraps each accepted connection, follows
//! the framing of the requests on it ([`Framing`]), and holds each request line back until
//! its end. A line longer than [`LINE_MAX`] never reaches hyper. Once every request before
//! it is answered (the service counts its answers) and the answers are flushed, hyper is
//! told the input ended (ending it sooner would cut an answer off: hyper drops a
//! connection whose input ends mid-exchange); it then shuts the connection down, and the
//! shutdown writes the 414, after hyper's last byte.
//!
//! After a request that announces a body (`Content-Length` or `Transfer-Encoding`; this
//! server answers those with 405) the bytes are no longer followed: a body may hold any
//! bytes, so a later line on that connection is hyper's to judge (431 when its head is
//! over [`super::HEAD_MAX`]).

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{ready, Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The longest request line read (method, target and version, without its line end), in
/// bytes; longer gets 414 (nginx's default is the same 8 KiB).
pub const LINE_MAX: usize = 8 * 1024;

/// Bytes of input read and thrown away at most once the 414 is written, so that closing
/// the connection does not reset it (the client sent the rest of its head).
const DRAIN_MAX: usize = 64 * 1024;

/// The answer to an over-long request line (the headers [`super::guard`] gives every answer).
const TOO_LONG: &str = "HTTP/1.1 414 URI Too Long\r\ncontent-type: text/plain; charset=utf-8\r\ncache-control: no-store\r\nx-content-type-options: nosniff\r\nconnection: close\r\ncontent-length: 45\r\n\r\nthe request target is longer than 8192 bytes\n";

/// How far the bytes read so far are into the requests of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// In a request line (or an empty line before one).
    Line {
        /// Bytes of the line so far, CRs included.
        len: usize,
        /// The last of them is a CR (not counted against [`LINE_MAX`] if an LF follows).
        cr: bool,
    },
    /// In the header fields of a request.
    Fields {
        /// Bytes of the current field line, CRs not counted (0: the line is empty so far).
        len: usize,
        /// The first bytes of the field's name, lower-cased (17: `transfer-encoding`).
        name: [u8; 17],
        /// The line has had its `:`.
        colon: bool,
        /// A field announced a body.
        body: bool,
    },
    /// A body follows (or may): the bytes are no longer followed.
    Opaque,
    /// A request line longer than [`LINE_MAX`].
    TooLong,
}

impl Framing {
    /// The start of a connection (and of each request after one without a body).
    pub const START: Framing = Framing::Line { len: 0, cr: false };

    const FIELD: Framing = Framing::Fields { len: 0, name: [0; 17], colon: false, body: false };

    /// Follow `bytes`, the next ones read from the connection.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            *self = match *self {
                Framing::Line { len, cr } => Framing::line_byte(len, cr, b),
                Framing::Fields { len, name, colon, body } => Framing::field_byte(len, name, colon, body, b),
                Framing::Opaque | Framing::TooLong => return,
            };
        }
    }

    fn line_byte(len: usize, cr: bool, b: u8) -> Framing {
        let content = len - usize::from(cr);
        match b {
            b'\n' if content == 0 => Framing::START,
            b'\n' if content > LINE_MAX => Framing::TooLong,
            b'\n' => Framing::FIELD,
            // Even a CR next would leave more than LINE_MAX before the LF.
            _ if len > LINE_MAX => Framing::TooLong,
            _ => Framing::Line { len: len + 1, cr: b == b'\r' },
        }
    }

    fn field_byte(len: usize, mut name: [u8; 17], mut colon: bool, mut body: bool, b: u8) -> Framing {
        match b {
            b'\n' if len == 0 => return if body { Framing::Opaque } else { Framing::START },
            b'\n' => return Framing::Fields { len: 0, name: [0; 17], colon: false, body },
            b'\r' => return Framing::Fields { len, name, colon, body },
            b':' if !colon => {
                colon = true;
                let field = name.get(..len).unwrap_or_default();
                body |= field == b"content-length" || field == b"transfer-encoding";
            }
            _ if !colon && len < name.len() => name[len] = b.to_ascii_lowercase(),
            _ => {}
        }
        Framing::Fields { len: len.saturating_add(1), name, colon, body }
    }

    /// Bytes at the end of what was fed that belong to a request line not yet ended
    /// (held back from hyper).
    pub fn held(&self) -> usize {
        match self {
            Framing::Line { len, .. } => *len,
            _ => 0,
        }
    }
}

/// A connection whose request lines are held back until they end, and refused with 414
/// when longer than [`LINE_MAX`] (see the module docs). Reads and writes otherwise pass.
pub struct LineLimit<S> {
    inner: S,
    framing: Framing,
    /// Bytes read from `inner` and not yet given to hyper; the last [`Framing::held`] of
    /// them are an unfinished request line.
    pending: Vec<u8>,
    /// Bytes of the 414 written so far.
    written: usize,
    /// Bytes read and thrown away after the 414.
    drained: usize,
    /// Complete request heads read (given to hyper, or about to be).
    heads: usize,
    /// Requests the service has answered on this connection (counted by the caller).
    answered: Arc<AtomicUsize>,
    /// Everything hyper wrote has been flushed.
    flushed: bool,
    /// hyper's read, waiting (after a line too long) for its answers to be flushed.
    waiting: Option<Waker>,
}

impl<S> LineLimit<S> {
    /// `inner`, at the start of its first request; `answered` counts the responses the
    /// service has given on it.
    pub fn new(inner: S, answered: Arc<AtomicUsize>) -> LineLimit<S> {
        LineLimit {
            inner,
            framing: Framing::START,
            pending: Vec::new(),
            written: 0,
            drained: 0,
            heads: 0,
            answered,
            flushed: true,
            waiting: None,
        }
    }

    /// Follow `bytes` read from the connection; once a line is too long, the rest of them
    /// and the line's own bytes are dropped.
    fn take_in(&mut self, bytes: &[u8]) {
        for &b in bytes {
            let (before, held) = (self.framing, self.framing.held());
            self.framing.feed(&[b]);
            match self.framing {
                Framing::TooLong => {
                    self.pending.truncate(self.pending.len() - held);
                    return;
                }
                Framing::START | Framing::Opaque if matches!(before, Framing::Fields { .. }) => self.heads += 1,
                _ => {}
            }
            self.pending.push(b);
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for LineLimit<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            let passable = this.pending.len() - this.framing.held();
            if passable > 0 {
                let n = passable.min(buf.remaining());
                buf.put_slice(&this.pending[..n]);
                this.pending.drain(..n);
                return Poll::Ready(Ok(()));
            }
            match this.framing {
                // hyper is told the input ended once it has answered all before the line
                // (woken by the flush of its last answer); the 414 goes at the shutdown.
                Framing::TooLong if this.answered.load(Ordering::SeqCst) < this.heads || !this.flushed => {
                    this.waiting = Some(cx.waker().clone());
                    return Poll::Pending;
                }
                Framing::TooLong => return Poll::Ready(Ok(())),
                Framing::Opaque => return Pin::new(&mut this.inner).poll_read(cx, buf),
                Framing::Line { .. } | Framing::Fields { .. } => {}
            }
            let mut chunk = [0u8; 4096];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            if read.filled().is_empty() {
                // The end of the input: hyper gets the unfinished line, then the end.
                this.framing = Framing::Opaque;
                if this.pending.is_empty() {
                    return Poll::Ready(Ok(()));
                }
            }
            this.take_in(read.filled());
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for LineLimit<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = ready!(Pin::new(&mut this.inner).poll_write(cx, buf))?;
        this.flushed &= written == 0;
        Poll::Ready(Ok(written))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(Pin::new(&mut this.inner).poll_flush(cx))?;
        this.flushed = true;
        if let Some(read) = this.waiting.take() {
            read.wake();
        }
        Poll::Ready(Ok(()))
    }

    /// After a line too long: the 414, then what the client has sent meanwhile is read and
    /// dropped (up to [`DRAIN_MAX`], not waiting for more), then the shutdown.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.framing == Framing::TooLong {
            let answer = TOO_LONG.as_bytes();
            while this.written < answer.len() {
                match ready!(Pin::new(&mut this.inner).poll_write(cx, &answer[this.written..]))? {
                    0 => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                    n => this.written += n,
                }
            }
            ready!(Pin::new(&mut this.inner).poll_flush(cx))?;
            while this.drained < DRAIN_MAX {
                let mut chunk = [0u8; 4096];
                let mut read = ReadBuf::new(&mut chunk);
                match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                    Poll::Ready(Ok(())) if !read.filled().is_empty() => this.drained += read.filled().len(),
                    _ => break,
                }
            }
        }
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(chunks: &[&[u8]]) -> Framing {
        let mut f = Framing::START;
        for c in chunks {
            f.feed(c);
        }
        f
    }

    #[test]
    fn request_lines_are_followed_through_heads_in_any_pieces() {
        let two = b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n\r\nGET /b HT";
        let whole = fed(&[two]);
        assert_eq!(whole, Framing::Line { len: 9, cr: false });
        assert_eq!(whole.held(), 9);
        let bytes: Vec<&[u8]> = two.chunks(1).collect();
        assert_eq!(fed(&bytes), whole, "byte by byte");
        assert_eq!(fed(&[b"GET / HTTP/1.1\nHost: x\n\n"]), Framing::START, "bare LFs");
        assert!(matches!(fed(&[b"GET / HTTP/1.1\r\nHost: x\r\n"]), Framing::Fields { len: 0, .. }));
        // A body follows: the bytes are no longer followed.
        for head in [&b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\n"[..], b"POST / HTTP/1.1\r\nTRANSFER-ENCODING: chunked\r\n\r\n"] {
            assert_eq!(fed(&[head]), Framing::Opaque, "{}", String::from_utf8_lossy(head));
        }
        for head in [&b"GET / HTTP/1.1\r\nX-Content-Length: 3\r\n\r\n"[..], b"GET / HTTP/1.1\r\nX: content-length:\r\n\r\n"] {
            assert_eq!(fed(&[head]), Framing::START, "{}", String::from_utf8_lossy(head));
        }
    }

    #[test]
    fn the_answer_is_a_whole_414_naming_the_limit() {
        let (head, body) = TOO_LONG.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{head}");
        assert!(head.contains(&format!("\r\ncontent-length: {}", body.len())), "{head}");
        assert!(body.contains(&format!(" {LINE_MAX} bytes")), "{body}");
    }

    #[test]
    fn a_line_is_too_long_only_beyond_line_max_without_its_line_end() {
        let line = |n: usize, end: &[u8]| [b"GET /".as_slice(), &vec![b'a'; n - 5], end].concat();
        assert_eq!(fed(&[&line(LINE_MAX, b"\r\n")]), Framing::FIELD);
        assert_eq!(fed(&[&line(LINE_MAX, b"\n")]), Framing::FIELD);
        assert_eq!(fed(&[&line(LINE_MAX, b"\r")]), Framing::Line { len: LINE_MAX + 1, cr: true });
        assert_eq!(fed(&[&line(LINE_MAX + 1, b"\n")]), Framing::TooLong);
        assert_eq!(fed(&[&line(LINE_MAX + 1, b"\r")]), Framing::TooLong);
        assert_eq!(fed(&[&line(LINE_MAX + 2, b"")]), Framing::TooLong);
        // A long header field is hyper's to judge (431 beyond HEAD_MAX).
        assert_eq!(fed(&[b"GET / HTTP/1.1\r\nX: ", &vec![b'a'; 3 * LINE_MAX], b"\r\n\r\n"]), Framing::START);
    }
}
