import Foundation
import Logging
import OakTestSupport
import Testing

@testable import OakServer

@Suite("Log lines")
struct LineLogHandlerTests {
    @Test("a line has the time, level, label, message and sorted metadata; values that would not read as one token are quoted")
    func lineFormat() throws {
        let lines = try linesWritten { output in
            var logger = Logger(label: "oak.test") { LineLogHandler(label: $0, output: output) }
            logger[metadataKey: "request_id"] = "abc-1"
            logger.info("request", metadata: ["path": "/api/v1/species/alba", "error": "no such \"thing\"", "status": .stringConvertible(404)])
            logger.debug("not written at info")
        }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        let time = String(line.prefix(24))
        #expect(time.hasSuffix("Z") && time.contains("T"))
        #expect(line.dropFirst(25) == #"info oak.test: request error="no such \"thing\"" path=/api/v1/species/alba request_id=abc-1 status=404"#)
    }

    @Test("the per-request line written from fields reads exactly as the same line logged with metadata")
    func fieldsLineEqualsMetadataLine() throws {
        let lines = try linesWritten { output in
            var handler = LineLogHandler(label: "oak.test", output: output)
            handler[metadataKey: "request_id"] = "abc-1"
            handler[metadataKey: "status"] = "overridden by the line's own"
            let fields: [(key: String, value: Logger.MetadataValue)] = [
                ("client", "127.0.0.1"), ("duration_ms", "0.25"), ("method", "GET"), ("path", "/api/v1/search"), ("status", "200"),
            ]
            handler.log(level: .info, "request", fields: fields)
            Logger(label: "oak.test") { _ in handler }.info("request", metadata: Logger.Metadata(uniqueKeysWithValues: fields))
            handler.log(level: .debug, "below the level", fields: fields)
        }
        #expect(lines.count == 2)
        #expect(
            lines.map { $0.dropFirst(25) }.allSatisfy {
                $0 == "info oak.test: request client=127.0.0.1 duration_ms=0.25 method=GET path=/api/v1/search request_id=abc-1 status=200"
            })
    }
}

extension LineLogHandlerTests {
    @Test("a request's line carries our request_id and not Hummingbird's own id; the metadata reads back whole")
    func requestIDReplacesHummingbirds() throws {
        let lines = try linesWritten { output in
            var logger = Logger(label: "oak.test") { LineLogHandler(label: $0, output: output) }
            logger[metadataKey: "hb.request.id"] = "hummingbird-7"
            logger[metadataKey: "request_id"] = "abc-1"
            logger[metadataKey: "route"] = "/api/v1/species/{name}"
            #expect(logger[metadataKey: "request_id"] == "abc-1")
            #expect(logger[metadataKey: "hb.request.id"] == nil)
            var handler = try #require(logger.handler as? LineLogHandler)
            #expect(handler.metadata == ["request_id": "abc-1", "route": "/api/v1/species/{name}"])
            handler.metadata = ["request_id": "abc-2", "hb.request.id": "hummingbird-8", "route": "/api/v1/notes"]
            #expect(handler.metadata == ["request_id": "abc-2", "route": "/api/v1/notes"])
            logger.warning("slow")
            handler.log(level: .info, "request", fields: [("status", "200")])
        }
        #expect(
            lines.map { $0.dropFirst(25) } == [
                "warning oak.test: slow request_id=abc-1 route=/api/v1/species/{name}",
                "info oak.test: request request_id=abc-2 route=/api/v1/notes status=200",
            ])
    }
}

extension LineLogHandlerTests {
    /// The lines that what `body` logs to an output on a pipe writes, once flushed.
    private func linesWritten(_ body: (LineOutput) throws -> Void) throws -> [Substring] {
        let pipe = Pipe()
        let output = LineOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor)
        try body(output)
        output.flush()
        try pipe.fileHandleForWriting.close()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
    }

    /// What has been written to a pipe so far, without waiting for more.
    private func available(_ pipe: Pipe, after wait: Duration = .zero) async throws -> String {
        try await Task.sleep(for: wait)
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        let count = read(descriptor, &bytes, bytes.count)
        return count > 0 ? String(decoding: bytes[..<count], as: UTF8.self) : ""
    }

    @Test("request lines wait to be written: at once when a warning comes (after them), and once 32 KiB collect")
    func linesWaitForAWarningOrAFullBuffer() async throws {
        let pipe = Pipe()
        // A timer that does not fire during the test.
        let output = LineOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor, delay: .seconds(600))
        let logger = Logger(label: "oak.test") { LineLogHandler(label: $0, output: output) }
        logger.info("first")
        logger.info("second")
        #expect(try await available(pipe).isEmpty)
        logger.warning("the warning")
        let urgent = try await available(pipe)
        #expect(urgent.split(separator: "\n").map { $0.dropFirst(25) } == ["info oak.test: first", "info oak.test: second", "warning oak.test: the warning"])

        let long = String(repeating: "x", count: 1_000)
        for _ in 0..<40 { logger.info("\(long)") }
        #expect(try await available(pipe).split(separator: "\n").count >= 32)
        output.flush()
        #expect(try await available(pipe).split(separator: "\n").count <= 8)
        try pipe.fileHandleForWriting.close()
    }

    @Test("a stalled output holds up no one: lines are added while a write waits, past 1 MiB dropped and counted")
    func stalledOutputHoldsUpNoOne() async throws {
        let pipe = Pipe()
        let output = LineOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor, delay: .seconds(600))
        // A warning larger than the pipe holds: its write waits until someone reads the pipe.
        let stalled = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            stalled.signal()
            output.append(Array((String(repeating: "w", count: 200_000) + "\n").utf8), urgent: true)
        }
        stalled.wait()
        try await Task.sleep(for: .milliseconds(50))
        let total = 100_000
        let added = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for index in 0..<total { output.append(Array("request line \(index)\n".utf8), urgent: index % 20_000 == 0) }
            added.signal()
        }
        #expect(added.wait(timeout: .now() + 30) == .success, "adding lines waited for the stalled output")

        let reader = PipeText(pipe)
        output.flush()
        try pipe.fileHandleForWriting.close()
        let lines = reader.wait().split(separator: "\n")
        #expect(lines.first?.count == 200_000)
        let kept = lines.compactMap { $0.hasPrefix("request line ") ? Int($0.dropFirst("request line ".count)) : nil }
        #expect(kept == Array(0..<kept.count))
        let notice = try #require(lines.first { $0.contains("log lines dropped") })
        let dropped = try #require(Int(notice.split(separator: " ")[3]))
        #expect(kept.count + dropped == total)
        #expect(kept.count > 0 && dropped > 0)
    }

    @Test("a request line is written by the timer (a tenth of a second), with no warning and no flush")
    func linesAreWrittenSoon() async throws {
        let pipe = Pipe()
        let logger = Logger(label: "oak.test") { LineLogHandler(label: $0, output: LineOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor)) }
        logger.info("on its own")
        var written = ""
        for _ in 0..<100 where written.isEmpty { written = try await available(pipe, after: .milliseconds(50)) }
        #expect(written.dropFirst(25) == "info oak.test: on its own\n")
        try pipe.fileHandleForWriting.close()
    }
}

@Suite("Request ids")
struct RequestIDsTests {
    @Test("generated request ids are distinct lower-case version 4 UUIDs")
    func distinctVersion4() {
        let ids = RequestIDs()
        let made = (0..<10_000).map { _ in ids.next() }
        #expect(Set(made).count == made.count)
        for id in made.prefix(100) {
            #expect(UUID(uuidString: id) != nil && id == id.lowercased() && id.count == 36)
            #expect(Array(id)[14] == "4" && "89ab".contains(Array(id)[19]))
        }
        #expect(RequestIDs().next() != RequestIDs().next())
    }
}
