import Foundation
import Logging
import Testing

@testable import OakServer

@Suite("Log lines")
struct LineLogHandlerTests {
    @Test("a line has the time, level, label, message and sorted metadata; values that would not read as one token are quoted")
    func lineFormat() throws {
        let pipe = Pipe()
        var logger = Logger(label: "oak.test") { LineLogHandler(label: $0, output: pipe.fileHandleForWriting.fileDescriptor) }
        logger[metadataKey: "request_id"] = "abc-1"
        logger.info("request", metadata: ["path": "/api/v1/species/alba", "error": "no such \"thing\"", "status": .stringConvertible(404)])
        logger.debug("not written at info")
        try pipe.fileHandleForWriting.close()
        let lines = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        let time = String(line.prefix(24))
        #expect(time.hasSuffix("Z") && time.contains("T"))
        #expect(line.dropFirst(25) == #"info oak.test: request error="no such \"thing\"" path=/api/v1/species/alba request_id=abc-1 status=404"#)
    }

    @Test("the per-request line written from fields reads exactly as the same line logged with metadata")
    func fieldsLineEqualsMetadataLine() throws {
        let pipe = Pipe()
        var handler = LineLogHandler(label: "oak.test", output: pipe.fileHandleForWriting.fileDescriptor)
        handler[metadataKey: "request_id"] = "abc-1"
        handler[metadataKey: "status"] = "overridden by the line's own"
        let fields: [(key: String, value: Logger.MetadataValue)] = [
            ("client", "127.0.0.1"), ("duration_ms", "0.25"), ("method", "GET"), ("path", "/api/v1/search"), ("status", "200"),
        ]
        handler.log(level: .info, "request", fields: fields)
        Logger(label: "oak.test") { _ in handler }.info("request", metadata: Logger.Metadata(uniqueKeysWithValues: fields))
        handler.log(level: .debug, "below the level", fields: fields)
        try pipe.fileHandleForWriting.close()
        let lines = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines.map { $0.dropFirst(25) }.allSatisfy {
                $0 == "info oak.test: request client=127.0.0.1 duration_ms=0.25 method=GET path=/api/v1/search request_id=abc-1 status=200"
            })
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
