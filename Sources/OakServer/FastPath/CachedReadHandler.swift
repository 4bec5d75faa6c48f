import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Puts `CachedReads` in a connection's pipeline, after Hummingbird's connection-state handler (which then sees
/// every request and response, for keep-alive and the idle timeout) and before the hand-over to tasks.
final class CachedReadHandler: HTTPPartHandler {
    private let reads: CachedReads
    /// Requests passed on whose response has not ended: while there is one, answers here would overtake it.
    private var passedOn = 0
    /// The request held to be answered here; its parts are not passed on unless it is.
    private var held: CachedReads.HeldRead?

    init(reads: CachedReads) {
        self.reads = reads
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if passedOn == 0, let read = reads.held(head) {
                held = read
                return
            }
            passedOn += 1
        case .body:
            // A body after all (it had no length): the router answers the request, from its head on.
            if let held { passOn(held.head, context) }
        case .end:
            if let read = held {
                held = nil
                if let answer = reads.answer(read, socketAddress: context.channel.remoteAddress?.ipAddress) {
                    context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
                    if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                    return
                }
                passOn(read.head, context)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// Hands a held request's head to the router after all.
    private func passOn(_ head: HTTPRequest, _ context: ChannelHandlerContext) {
        held = nil
        passedOn += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}

/// A handler of a connection's decoded HTTP parts: requests in and on, responses out.
protocol HTTPPartHandler: ChannelDuplexHandler, RemovableChannelHandler
where InboundIn == HTTPRequestPart, InboundOut == HTTPRequestPart, OutboundIn == HTTPResponsePart, OutboundOut == HTTPResponsePart {}

/// Hummingbird's HTTP/1 connection with `CachedReadHandler` in its pipeline.
struct CachedReadsHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let reads: CachedReads

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(CachedReadHandler(reads: reads), position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
