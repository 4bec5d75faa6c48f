import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import OakModels

/// Whole-request deadlines: a request (headers and body) must arrive within `timeout` of its first byte, or
/// the server answers 408 and closes the connection, so a client sending a byte every few seconds cannot
/// hold a connection (and a file descriptor) for as long as it likes. The idle timeout covers connections
/// with no request in progress.
///
/// Once the server is stopping (SIGTERM: Hummingbird's quiesce event), a request still arriving gets
/// `stoppingGrace` at most, and one that has not arrived by then is refused with 503 and `Retry-After`
/// (the client sends it again, to this server once restarted or to another): a slow or stalled client
/// cannot hold the stop past its bound, and what it sent is not half-applied.
///
/// Two handlers share one clock: `RequestDeadlineHandler` sits after the HTTP decoding (it sees each request
/// end and whether a response has started) and, once added, puts `RequestStartHandler` in front of the
/// pipeline, where the first raw byte of each request arrives.
final class RequestDeadlineHandler: HTTPPartHandler {
    private let timeout: TimeAmount
    private let logger: Logger
    /// How long a request still arriving when the server starts to stop may take to arrive.
    static let stoppingGrace = TimeAmount.seconds(3)
    /// Whether the server is stopping: late requests are then refused with 503 instead of 408.
    private var stopping = false
    /// How long a request may take to arrive from its first byte: the request timeout, or the grace once stopping.
    private var allowance: TimeAmount { stopping ? min(timeout, Self.stoppingGrace) : timeout }
    /// Whether a request's bytes have started arriving and its end has not.
    private var inProgress = false
    /// When the request in progress must have arrived.
    private var due = NIODeadline.distantFuture
    /// Whether the response to the request in progress has started (then a 408 cannot be written).
    private var responding = false
    /// The connection's one check, armed while a request is in progress. It is not cancelled when the request
    /// ends in time (a quick request then costs no timer of its own): when it fires it looks again, and arms
    /// itself for the request in progress then, if any.
    private var check: Scheduled<Void>?

    init(timeout: TimeAmount, logger: Logger) {
        self.timeout = timeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.pipeline.syncOperations.addHandler(RequestStartHandler(deadline: self), position: .first)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
    }

    /// The first bytes of a request arrived (called by the front handler, on the channel's event loop).
    fileprivate func requestBytesArrived(_ context: ChannelHandlerContext) {
        guard !inProgress else { return }
        inProgress = true
        responding = false
        due = .now() + allowance
        if check == nil { arm(context.channel, context.eventLoop) }
    }

    /// The server starts to stop: a request in progress must arrive within `stoppingGrace`, checked then.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !stopping {
            stopping = true
            let soon = NIODeadline.now() + Self.stoppingGrace
            if inProgress, soon < due {
                due = soon
                check?.cancel()
                arm(context.channel, context.eventLoop)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Schedules the check for the request in progress's deadline.
    private func arm(_ channel: any Channel, _ eventLoop: any EventLoop) {
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        check = eventLoop.scheduleTask(deadline: due) {
            handler.value.checkDeadline(channel, eventLoop)
        }
    }

    /// The check fired: the request in progress is late, or it is not yet due (the check waits for it), or
    /// no request is in progress (the check stops until the next one).
    private func checkDeadline(_ channel: any Channel, _ eventLoop: any EventLoop) {
        check = nil
        guard inProgress else { return }
        if due > .now() { return arm(channel, eventLoop) }
        expire(channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { inProgress = false }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head = unwrapOutboundIn(data) { responding = true }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        context.fireChannelInactive()
    }

    /// The request is late: a 408 with the error envelope, or a 503 with `Retry-After` while the server stops
    /// (unless a response has started), then the connection closes.
    private func expire(_ channel: any Channel) {
        guard channel.isActive else { return }
        let seconds = allowance.nanoseconds / 1_000_000_000
        logger.notice(
            stopping
                ? "Request still arriving as the server stops; answering 503 and closing the connection"
                : "Request did not arrive in time; answering 408 and closing the connection",
            metadata: ["remote": "\(channel.remoteAddress?.description ?? "?")", "timeout_s": "\(seconds)"])
        guard !responding else {
            channel.close(promise: nil)
            return
        }
        let (error, statusLine, retryAfter) =
            stopping
            ? (
                OakError(.serviceUnavailable, "The server is stopping and the request did not arrive within \(seconds) seconds; send it again"),
                "503 Service Unavailable", "Retry-After: \(ErrorResponses.retryAfterSeconds)\r\n"
            )
            : (OakError(.requestTimeout, "The whole request must arrive within \(seconds) seconds"), "408 Request Timeout", "")
        let body = (try? WireJSON.encoder.encode(ErrorEnvelope(error: error))) ?? Data()
        var buffer = channel.allocator.buffer(capacity: body.count + 200)
        buffer.writeString(
            "HTTP/1.1 \(statusLine)\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: \(body.count)\r\n\(retryAfter)Connection: close\r\n\r\n"
        )
        buffer.writeBytes(body)
        let response = buffer
        // Written below the HTTP encoder: the request is unfinished, so the encoder has no response to frame.
        // Without the front handler (the pipeline is being torn down), the connection is closed unanswered.
        channel.pipeline.context(handlerType: RequestStartHandler.self).whenComplete { result in
            switch result {
            case .success(let front): front.writeAndFlush(NIOAny(response)).whenComplete { _ in channel.close(promise: nil) }
            case .failure: channel.close(promise: nil)
            }
        }
    }
}

/// The front of the pipeline: tells the deadline handler when a request's first byte arrives.
final class RequestStartHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let deadline: RequestDeadlineHandler

    fileprivate init(deadline: RequestDeadlineHandler) {
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadline.requestBytesArrived(context)
        context.fireChannelRead(data)
    }
}
