import Foundation
import OakTestSupport
import Testing

@testable import OakClient

@Suite("Retry-After parsing")
struct RetryAfterTests {
    @Test("Retry-After is read as delay seconds or as an HTTP date")
    func parsing() {
        #expect(RetryAfter.parse("7") == .seconds(7))
        let now = Date(timeIntervalSince1970: 1_767_225_600)  // Thu, 01 Jan 2026 00:00:00 GMT
        #expect(RetryAfter.parse("Thu, 01 Jan 2026 00:00:30 GMT", now: now) == .seconds(30))
        #expect(RetryAfter.parse("soon") == nil)
        #expect(RetryAfter.parse(nil) == nil)
    }
}
