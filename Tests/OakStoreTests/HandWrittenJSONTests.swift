import Foundation
import GRDB
import NIOCore
import OakModels
import OakStore
import OakStoreKit
import OakTestBasics
import OakTestSupport
import Testing

@testable import OakStoreSQLite

/// The export and sync pages are written by hand from the columns (`JSONOutput`); these tests hold them
/// to what the models and `JSONEncoder` give for the same rows, including rows other tools wrote.
@Suite("Hand-written JSON")
struct HandWrittenJSONTests {
    @Test("list columns read without the decoder give what JSONDecoder gives, and the rest still goes to it")
    func plainListColumns() throws {
        let samples = [
            #"["White oak","chêne blanc"]"#, #" [ "a" , "b" ] "#, #"[]"#, #"["", "x"]"#, "[\"😀 \u{2028}\"]",
            #"["with \"quote\""]"#, #"["a", null]"#, #"["a",]"#, #"["a""#, #"["a"] x"#, #"[1]"#, "[\"tab\tin\"]",
        ]
        for text in samples {
            let decoded = (try? JSONDecoder().decode([String?].self, from: Data(text.utf8)))?.compactMap { $0 }
            if let plain = ColumnCoding.plainStringArray(text) {
                #expect(plain == decoded, "\(text)")
            }
            if let decoded {
                #expect(ColumnCoding.strings(text) == decoded.filter { !$0.isEmpty }, "\(text)")
            }
        }
        #expect(ColumnCoding.plainStringArray(#"["with \"quote\""]"#) == nil)
        #expect(ColumnCoding.plainStringArray(#"["a", null]"#) == nil)
        #expect(ColumnCoding.plainStringArray(#" [ "a" , "b" ] "#) == ["a", "b"])
        #expect(ColumnCoding.strings(#"["a", null]"#) == ["a"])
        #expect(ColumnCoding.strings("oak, chêne") == ["oak", "chêne"])
    }

    @Test("strings are escaped byte for byte as JSONEncoder escapes them, invalid UTF-8 repaired")
    func escaping() throws {
        var samples: [[UInt8]] = [
            Array(0...0x7F), Array("chêne \"blanc\" / 😀 \u{2028} tab\tend".utf8), [0x41, 0xFF, 0x42, 0xC3], [],
            Array(String(repeating: "Quercus «alba» é \\ ", count: 9).utf8), Array(repeating: 0x80, count: 3) + Array("abcdefghijklmnop".utf8),
        ]
        // Text is scanned a word (eight bytes) at a time: each byte that matters, at every place in a word,
        // beside bytes just above and below it.
        for byte: UInt8 in [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0xA2, 0xDC, 0xFF] {
            for place in 0..<20 {
                var text = Array("abcdefghijklmnopqrstuvwx".utf8)
                text[place] = byte
                samples.append(text)
            }
        }
        for bytes in samples {
            var output = JSONOutput(capacity: 16)
            bytes.withUnsafeBufferPointer { output.string(utf8: $0) }
            let expected = try WireJSON.encoder.encode([String(decoding: bytes, as: UTF8.self)]).dropFirst().dropLast()
            #expect(output.bytes == Array(expected))
        }
    }

    @Test("an output is a value: a copy written on, grown past its capacity or cleared leaves the original as it was")
    func outputIsAValue() {
        var original = JSONOutput(capacity: 8)
        original.raw("[")
        original.string("first")
        var copy = original
        copy.raw(",")
        copy.string(String(repeating: "long text ", count: 20))
        copy.raw("]")
        original.raw("]")
        #expect(String(decoding: original.bytes, as: UTF8.self) == #"["first"]"#)
        #expect(String(decoding: copy.bytes, as: UTF8.self) == #"["first",""# + String(repeating: "long text ", count: 20) + #""]"#)
        var cleared = original
        cleared.clear()
        cleared.raw("{}")
        #expect(String(decoding: cleared.bytes, as: UTF8.self) == "{}")
        #expect(String(decoding: original.bytes, as: UTF8.self) == #"["first"]"#)
        #expect(original.withBytes { Array($0) } == original.bytes)
    }

    @Test("the buffer handed over holds what was written, even when a copy sharing its memory writes on; the output is left empty")
    func handedOverBuffer() {
        var large = JSONOutput(capacity: 64)
        for index in 0..<1_000 { large.int(Int64(index)) }
        let grown = large.takeByteBuffer()
        #expect(String(buffer: grown) == (0..<1_000).map(String.init).joined())
        #expect(large.bytes.isEmpty)
        large.raw("[]")
        #expect(String(buffer: grown).hasPrefix("0123"))

        var handedOver = JSONOutput(capacity: 64)
        handedOver.raw("[1]")
        var sharing = handedOver
        let sent = handedOver.takeByteBuffer()
        sharing.clear()
        sharing.raw("[2]")
        #expect(String(buffer: sent) == "[1]")
        #expect(String(decoding: sharing.bytes, as: UTF8.self) == "[2]")
    }

    @Test("lists of strings stored and sent as JSON text are written as the encoder writes them")
    func stringListText() throws {
        let lists = [[], ["Quercus alba", "chêne \"blanc\" / 😀", "tab\tand\\"], [String(repeating: "é\u{1}", count: 40)]]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        for list in lists {
            #expect(ColumnCoding.json(list) == String(decoding: try encoder.encode(list), as: UTF8.self))
        }
        #expect(ColumnCoding.json(lists) == String(decoding: try encoder.encode(lists), as: UTF8.self))
    }

    @Test("the export written from the columns equals the export models (ExportFile) built from the routes' records, for rows other tools wrote too")
    func exportMatchesModels() async throws {
        let store = try await storeWithOddRows()
        let snapshot = try await store.export()
        let document = try #require(try JSONSerialization.jsonObject(with: Data(snapshot.body.readableBytesView)) as? [String: Any])
        let entries = try #require(document["species"] as? [[String: Any]])
        let species = try await store.listSpecies(filter: SpeciesFilter(), limit: 1000, offset: 0).data
        let sources = try await store.listSources()
        let sourcesByID = Dictionary(uniqueKeysWithValues: sources.map { ($0.id, $0) })
        #expect(entries.count == species.count)
        for (entry, item) in zip(entries, species) {
            let full = try await store.speciesFull(named: item.scientificName)
            let expected = try object(ExportSpecies(species: item, data: full.sources, sources: sourcesByID))
            #expect(try canonical(entry) == canonical(expected), "\(item.scientificName)")
        }
        #expect(try canonical(try #require(document["sources"] as? [[String: Any]])) == canonical(sources.map { try object(ExportSource($0)) }))
        let metadata = try #require(document["metadata"] as? [String: Any])
        #expect(metadata["species_count"] as? Int == species.count)
        // The same data gives the same bytes, hence the same ETag.
        let again = try SQLiteStore(path: store.path)
        #expect(try await again.export().body == snapshot.body)
        #expect(try await again.export().etag == snapshot.etag)
    }

    @Test("a species' full record written from the rows is byte for byte the model through the encoder, for every species and rows other tools wrote")
    func speciesFullMatchesModel() async throws {
        let store = try await storeWithOddRows()
        for item in try await store.listSpecies(filter: SpeciesFilter(), limit: 1000, offset: 0).data {
            for name in [item.scientificName, "Quercus \(item.scientificName)"] {
                let expected = try WireJSON.encoder.encode(try await store.speciesFull(named: name))
                let written = try await store.encodedSpeciesFull(named: name)
                #expect(Data(written.readableBytesView) == expected, "\(name)")
            }
        }
        await #expect(throws: OakError.self) { try await store.encodedSpeciesFull(named: "nonexistentia") }
    }

    @Test("a pull page written from the columns carries each record as its own route encodes it, in change order")
    func pullMatchesModels() async throws {
        let store = try await storeWithOddRows()
        var cursor: String?
        var versions: [Int64] = []
        repeat {
            let pulled = try await store.pull(cursor: cursor, limit: 150, entities: SyncEntity.allCases)
            let page = try #require(try JSONSerialization.jsonObject(with: Data(pulled.body.readableBytesView)) as? [String: Any])
            for change in try #require(page["changes"] as? [[String: Any]]) {
                let key = try #require(change["key"] as? String)
                versions.append(try #require((change["version"] as? NSNumber)?.int64Value))
                #expect(change["op"] as? String == "upsert")
                var expected: [String: Any] =
                    switch change["entity"] as? String {
                    // Notes as the sync protocol encodes them (times to the millisecond).
                    case "notes": try object(await store.note(id: try #require(UUID(uuidString: key))), encoder: WireJSON.syncEncoder)
                    case "species": try object(await store.species(named: key))
                    case "taxa":
                        try object(
                            await store.taxon(
                                level: try #require(TaxonLevel(rawValue: String(key.split(separator: "/")[0]))), name: String(key.split(separator: "/")[1])))
                    default: try object(await store.source(id: try #require(Int(key))))
                    }
                // Counts are in the routes' answers, not in pulled records (they change without a change of the record).
                expected.removeValue(forKey: "species_count")
                #expect(try canonical(try #require(change["record"] as? [String: Any])) == canonical(expected), "\(key)")
            }
            cursor = page["hasMore"] as? Bool == true ? page["cursor"] as? String : nil
        } while cursor != nil
        #expect(versions == versions.sorted())
        let total = try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM change_log WHERE op = 'upsert'") }
        #expect(versions.count == total)
    }

    /// A store with the starter data, one note per species with source 2, and rows written by other tools:
    /// escapes, control characters, non-ASCII and invalid UTF-8, comma-separated and spaced JSON lists,
    /// timestamps in SQLite's own format, empty texts, external links.
    private func storeWithOddRows() async throws -> SQLiteStore {
        let path = temporaryDatabasePath("oak-json")
        let store = try SQLiteStore(path: path)
        for (index, species) in try await store.listSpecies(filter: SpeciesFilter(), limit: 40, offset: 0).data.enumerated() {
            let fields = try JSONDecoder().decode(
                NoteFieldsPatch.self, from: Data(#"{"commonNames": "oak \#(index), chêne", "leaf": "lobed \"deeply\" / 7–9 \\ \#(index)"}"#.utf8))
            _ = try await store.createNote(NoteInput(scientificName: species.scientificName, sourceId: 2, fields: fields))
        }
        try await store.pool.write { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM species_sources ORDER BY id LIMIT 5")
            try db.execute(
                sql: "UPDATE species_sources SET local_names = ?, leaves = ?, bark = ?, created_at = '2024-03-01 10:00:00' WHERE id = ?",
                arguments: [#"["chêne \"blanc\"", "white\noak"]"#, "tab\there back\\slash \u{1} é 😀", "line1\r\nline2\u{8}\u{c}", ids[0]])
            try db.execute(
                sql: "UPDATE species_sources SET local_names = 'white oak, stave oak ,', updated_at = '2024-03-01T10:00:00Z' WHERE id = ?", arguments: [ids[1]])
            try db.execute(sql: #"UPDATE species_sources SET local_names = ' [ "a" ,"b"] ', range = CAST(X'41FF42' AS TEXT) WHERE id = ?"#, arguments: [ids[2]])
            try db.execute(sql: "UPDATE species_sources SET local_names = '[]', growth_habit = '' WHERE id = ?", arguments: [ids[3]])
            // Lists of empty items only are empty lists (the models leave empty items out).
            try db.execute(sql: #"UPDATE species_sources SET local_names = '["", ""]' WHERE id = ?"#, arguments: [ids[4]])
            try db.execute(
                sql: #"""
                    UPDATE oak_entries SET hybrids = '[""]', closely_related_to = '', subspecies_varieties = '["", "x"]', conservation_status = ''
                    WHERE scientific_name = (SELECT scientific_name FROM oak_entries WHERE scientific_name <> 'alba' ORDER BY scientific_name LIMIT 1)
                    """#)
            try db.execute(
                sql:
                    #"UPDATE oak_entries SET external_links = '[{"url": "https://example.org/a", "label": "A"}]', synonyms = 'Q. foo, Q. bar', author = 'Lé "x"' WHERE scientific_name = 'alba'"#
            )
        }
        return store
    }

    /// JSON text with sorted keys, to compare two parsed documents.
    private func canonical(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    private func object(_ value: some Encodable, encoder: JSONEncoder = WireJSON.encoder) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: encoder.encode(value)) as? [String: Any])
    }
}

@Suite("Pull queries")
struct PullQueryTests {
    @Test("a note row's column list names every column of species_sources but its id and the original's legacy one, one value each")
    func noteColumnList() throws {
        let store = try temporaryStore("oak-columns")
        let columns = try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('species_sources')") }
        // `bark_twigs_buds` is the original schema's column, kept for its files (and copied) but never written.
        #expect(Set(SpeciesSource.columnNames) == Set(columns).subtracting(["id", "bark_twigs_buds"]))
        #expect(SpeciesSource.columnNames.count == Set(SpeciesSource.columnNames).count)
        let record = try NewNote.record(id: UUID(), species: "alba", sourceId: 3, fields: NoteFields(), at: Date())
        #expect(record.columnList.count == SpeciesSource.columnNames.count)
        #expect(record.columnValues.count == SpeciesSource.columnNames.count)
    }

    @Test("a pull page reads a range of the change log in its own order, without sorting the rest of it")
    func pageQueriesWalkTheSequence() async throws {
        let store = try temporaryStore("oak-plan")
        let plans = try await store.pool.read { db in
            let queries: [(sql: String, arguments: StatementArguments)] = [
                (SQLiteStore.pageQuery(entities: SyncEntity.allCases), [0, 1000, 100]),
                (SQLiteStore.pageQuery(entities: [.notes]), [0, 1000, -1]),
                (PulledNoteColumn.query, [0, 1000]),
            ]
            return try queries.map { query in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(query.sql)", arguments: query.arguments).map { $0["detail"] as String }
                    .joined(separator: "\n")
            }
        }
        for plan in plans {
            #expect(plan.contains("INTEGER PRIMARY KEY"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
        }
    }

    @Test("compaction finds old tombstones through an index that holds tombstones only, so upserts add nothing to it")
    func tombstoneIndexHoldsTombstonesOnly() async throws {
        let store = try temporaryStore("oak-plan")
        let note = try await store.createNote(NoteInput(scientificName: "alba", fields: NoteFieldsPatch()))
        try await store.deleteNote(id: note.id, expectedVersion: nil)
        let (plan, indexed, upserts) = try await store.pool.read { db in
            (
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(SQLiteStore.newestCompactableQuery)", arguments: ["9999"])
                    .map { $0["detail"] as String }.joined(separator: "\n"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM change_log INDEXED BY change_log_tombstones WHERE op = 'delete' AND changed_at > ''"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM change_log WHERE op = 'upsert'")
            )
        }
        #expect(plan.contains("change_log_tombstones"), "\(plan)")
        #expect(indexed == 1)
        #expect((upserts ?? 0) > 1)
        #expect(try await store.compact(olderThan: Date().addingTimeInterval(60)) == 1)
    }
}
