import Foundation
import OakModels
import Testing

@Suite("Sync rules shared by the server and the client")
struct SyncRulesTests {
    private let noon = Date(timeIntervalSince1970: 1_767_268_800)

    @Test("last write wins: the later time wins whatever the content")
    func laterWins() {
        let short = NoteFields(leaf: "a")
        let long = NoteFields(leaf: "a much longer description")
        #expect(SyncRules.wins(noon.addingTimeInterval(0.001), short, over: noon, long))
        #expect(!SyncRules.wins(noon, long, over: noon.addingTimeInterval(0.001), short))
        #expect(SyncRules.wins(noon.addingTimeInterval(1), nil, over: noon, long))  // a later delete wins
    }

    @Test("a tie goes to the greater content, the same way from either side; a delete loses a tie to any content")
    func tieBreak() {
        let first = NoteFields(leaf: "lobed")
        let second = NoteFields(leaf: "entire")
        #expect(SyncRules.wins(noon, first, over: noon, second) != SyncRules.wins(noon, second, over: noon, first))
        #expect(!SyncRules.wins(noon, first, over: noon, first))
        #expect(!SyncRules.wins(noon, nil, over: noon, first))
        #expect(SyncRules.wins(noon, first, over: noon, nil))
    }

    @Test("a pushed time more than five minutes ahead of the server is recorded as the server's time; others are kept, to the millisecond")
    func clockSkew() {
        let ahead = noon.addingTimeInterval(SyncRules.allowedClockSkew - 1)
        #expect(SyncRules.recordedTime(of: ahead, now: noon) == ahead)
        #expect(SyncRules.recordedTime(of: noon.addingTimeInterval(SyncRules.allowedClockSkew + 1), now: noon) == noon)
        let past = noon.addingTimeInterval(-86_400.000_4)
        #expect(SyncRules.recordedTime(of: past, now: noon) == WireTime.milliseconds(past))
    }
}
