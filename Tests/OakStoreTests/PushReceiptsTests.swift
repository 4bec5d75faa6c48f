import Foundation
import OakModels
import OakStore
import Testing

@Suite("Push receipts")
struct PushReceiptsTests {
    private let id = UUID(uuidString: "6F1C2B1E-3D4A-4B5C-8D9E-0F1A2B3C4D5E")!
    private let time = Date(timeIntervalSince1970: 1_767_268_800.123)

    private func change(
        op: SyncOperation = .upsert, base: Int64? = 3, time: Date? = nil, species: String = "alba", source: Int? = 3, leaf: String = "lobed"
    ) -> PushChange {
        PushChange(
            id: id, op: op, baseVersion: base, updatedAt: time ?? self.time,
            note: op == .delete ? nil : PushedNote(scientificName: species, sourceId: source, fields: NoteFields(leaf: leaf)))
    }

    @Test("the same change sent again has the same digest; any field that defines it gives another")
    func digestIdentity() {
        let digest = PushReceipts.digest(of: change())
        #expect(digest == PushReceipts.digest(of: change()))
        #expect(digest.count == 64)
        let variants = [
            change(op: .delete), change(base: nil), change(base: 4), change(time: time.addingTimeInterval(0.001)),
            change(species: "rubra"), change(source: nil), change(leaf: "entire"),
        ]
        let digests = Set(variants.map { PushReceipts.digest(of: $0) })
        #expect(digests.count == variants.count)
        #expect(!digests.contains(digest))
    }
}
