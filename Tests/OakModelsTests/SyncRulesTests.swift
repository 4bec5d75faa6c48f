import Foundation
import OakModels
import Testing

@Suite("The sync rule, without a database")
struct SyncRulesTests {
    private let noon = Date(timeIntervalSince1970: 1_767_268_800)

    private func at(_ seconds: Double) -> Date { WireTime.milliseconds(noon.addingTimeInterval(seconds)) }

    /// A note whose fields were each written at their own time.
    private func note(_ fields: [NoteFields.Field: (String?, Double)], writtenAt: Double) -> TimedFields {
        var values = NoteFields()
        for (field, (value, _)) in fields { values[field] = value }
        return TimedFields(fields: values, fieldTimes: fields.mapValues { at($0.1) }, writtenAt: at(writtenAt))
    }

    @Test("a pushed time more than fifteen minutes ahead of the server is recorded as the server's time; others are kept, to the millisecond")
    func clockSkew() {
        let ahead = noon.addingTimeInterval(SyncRules.allowedClockSkew - 1)
        #expect(SyncRules.recordedTime(of: ahead, now: noon) == ahead)
        #expect(SyncRules.recordedTime(of: noon.addingTimeInterval(SyncRules.allowedClockSkew + 1), now: noon) == noon)
        let past = noon.addingTimeInterval(-86_400.000_4)
        #expect(SyncRules.recordedTime(of: past, now: noon) == WireTime.milliseconds(past))
    }

    @Test("a hybrid time is the clock's when later than what was seen, else a millisecond after it")
    func hybridTime() {
        #expect(SyncRules.hybridTime(at(10), after: at(5)) == at(10))
        #expect(SyncRules.hybridTime(at(5), after: at(10)) == at(10.001))
        #expect(SyncRules.hybridTime(at(10), after: at(10)) == at(10.001))
    }

    @Test("per-field merge: two devices editing different fields both keep their edit; the same field keeps the later one")
    func differentFieldsBothStay() {
        let base = note([.leaf: ("lobed", 0), .bark: ("grey", 0)], writtenAt: 0)
        let phone = SyncRules.edit(base, to: NoteFields(leaf: "deeply lobed", bark: "grey"), at: at(10))
        let tablet = SyncRules.edit(base, to: NoteFields(leaf: "lobed", bark: "scaly"), at: at(20))
        let merged = SyncRules.merge(phone, tablet)
        #expect(merged.fields == NoteFields(leaf: "deeply lobed", bark: "scaly"))
        #expect(merged.time(of: .leaf) == at(10))
        #expect(merged.time(of: .bark) == at(20))
        #expect(merged.writtenAt == at(20))
        let laterLeaf = SyncRules.edit(base, to: NoteFields(leaf: "entire", bark: "grey"), at: at(30))
        #expect(SyncRules.merge(merged, laterLeaf).fields == NoteFields(leaf: "entire", bark: "scaly"))
    }

    @Test("per-field merge is commutative, associative and idempotent, ties going to the greater text, so any order of arrival gives one note")
    func mergeLaws() {
        let notes = [
            note([.leaf: ("a", 5), .bark: ("x", 7)], writtenAt: 7),
            note([.leaf: ("b", 5), .bark: (nil, 9), .form: ("tall", 3)], writtenAt: 9),
            note([.leaf: ("c", 2), .acorn: ("striped", 8)], writtenAt: 8),
        ]
        for a in notes {
            #expect(SyncRules.merge(a, a) == a)
            for b in notes {
                #expect(SyncRules.merge(a, b) == SyncRules.merge(b, a))
                for c in notes {
                    #expect(SyncRules.merge(SyncRules.merge(a, b), c) == SyncRules.merge(a, SyncRules.merge(b, c)))
                }
            }
        }
        #expect(SyncRules.merge(notes[0], notes[1]).fields.leaf == "b")  // a tie at 5: the greater text
    }

    @Test("a delete removes the note unless a write was made after it; what was written before it is cleared; a tie goes to the delete")
    func deletes() {
        let written = note([.leaf: ("lobed", 5), .bark: ("grey", 15)], writtenAt: 15)
        #expect(SyncRules.afterDelete(at: at(20), of: written) == nil)
        #expect(SyncRules.afterDelete(at: at(15), of: written) == nil)
        let left = SyncRules.afterDelete(at: at(10), of: written)
        #expect(left?.fields == NoteFields(bark: "grey"))
        #expect(left?.time(of: .leaf) == at(10.001))
        // A write made at the delete's own time, arriving after it, stays cleared: the delete wins the tie.
        let sameTime = note([.leaf: ("at the delete's time", 10)], writtenAt: 10)
        #expect(SyncRules.merge(left!, sameTime).fields == NoteFields(bark: "grey"))
        // A cleared field is newer than any write before the delete: an old edit of it loses.
        let oldEdit = note([.leaf: ("from before the delete", 8)], writtenAt: 8)
        #expect(SyncRules.merge(left!, oldEdit).fields == NoteFields(bark: "grey"))
    }

    @Test("an edit writes the fields it changes at its time and leaves the others' times")
    func edits() {
        let base = note([.leaf: ("lobed", 1), .bark: ("grey", 2)], writtenAt: 2)
        let edited = SyncRules.edit(base, to: NoteFields(leaf: "lobed", bark: "scaly", form: "tall"), at: at(9))
        #expect(edited.time(of: .leaf) == at(1))
        #expect(edited.time(of: .bark) == at(9))
        #expect(edited.time(of: .form) == at(9))
        #expect(
            edited.fieldTimes == [
                .leaf: at(1), .twigs: at(2), .acorn: at(2), .buds: at(2), .commonNames: at(2), .rangeHabitat: at(2), .fieldNotes: at(2), .resources: at(2),
            ])
    }

    @Test("a fast-forward from a slow clock is timed after the version it was made on, in each field it changes")
    func fastForward() {
        let base = note([.leaf: ("v1", 100)], writtenAt: 100)
        let slow = TimedFields(fields: NoteFields(leaf: "A"), writtenAt: at(40))
        let made = SyncRules.made(slow, on: base)
        #expect(made.time(of: .leaf) == at(100.001))
        #expect(made.writtenAt == at(100.001))
        let onTombstone = SyncRules.made(slow, on: nil, deletedAt: at(100))
        #expect(SyncRules.afterDelete(at: at(100), of: onTombstone)?.fields == NoteFields(leaf: "A"))
    }

    @Test("stored field times read back as written, by hand in their own layout; another program's JSON still reads, and garbage names none")
    func fieldTimesText() throws {
        let times: [NoteFields.Field: Date] = [.leaf: at(1.5), .acorn: at(-86_400.25), .form: at(0)]
        let text = try #require(FieldTimesJSON.text(times))
        #expect(text.hasPrefix(#"{"leaf":""#) && !text.contains(" "))
        #expect(FieldTimesJSON.times(text) == times)
        #expect(FieldTimesJSON.times(FieldTimesJSON.text([.bark: at(2)])) == [.bark: at(2)])
        // As another program writes it: spaces, escapes, fields we do not know, whole seconds.
        let other = #"{ "leaf" : "\#(WireTime.formatPrecise(at(1.5)))", "colour": "2026-01-01T00:00:00Z", "ac\u006frn": "\#(WireTime.format(at(3)))" }"#
        #expect(FieldTimesJSON.times(other) == [.leaf: at(1.5), .acorn: at(3)])
        for garbage in [nil, "", "{", "}", "{}x", #"{"leaf":"soon"}"#, #"{"leaf":1}"#, #"{"leaf""2026-01-01T00:00:00Z"}"#, "[]"] {
            #expect(FieldTimesJSON.times(garbage).isEmpty, "\(garbage ?? "nil")")
        }
    }
}
