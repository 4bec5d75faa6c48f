import Foundation
import GRDB
import OakModels
import OakSQLite

/// What a migration of the original app's files did.
public struct LegacyImportSummary: Hashable, Sendable {
    /// Notes added to the device, queued for upload.
    public var importedNotes = 0
    /// Notes already on the device (same id, or a note for the same species and source): left alone.
    public var skippedNotes = 0
    /// Sources the device lacked, created and queued for upload.
    public var createdSources = 0
    /// Species the catalog lacked, created from the notes' taxonomy and queued for upload.
    public var createdSpecies = 0
    /// Notes that could not be taken, with why (one line each).
    public var problems: [String] = []
    /// The photo files the old notes listed (`photoFileNames`, in the old app's `Photos` folder), by the id of the
    /// note on this device they belong to now: the old note's own id, or the note it was matched with.
    public var photoFileNames: [UUID: [String]] = [:]

    public init() {}
}

/// A one-time move of the original Oak Compendium app's local files (`species_notes.json` and
/// `sources.json` in its Documents folder) into the device's store. Every note keeps its id and times and
/// is queued for upload; sources and species the device lacks are created offline the same way. Running
/// it again adds nothing (notes are matched by id, then by species and source). The old files are only read.
public struct LegacyAppImport: Sendable {
    public static let notesFileName = "species_notes.json"
    public static let sourcesFileName = "sources.json"

    let store: LocalStore

    public init(store: LocalStore) {
        self.store = store
    }

    /// Whether `directory` holds the original app's notes file.
    public static func hasLegacyFiles(in directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(notesFileName).path)
    }

    /// Imports the files in `directory`; a missing sources file means only the standard sources were used.
    public func run(directory: URL) async throws -> LegacyImportSummary {
        let sourcesURL = directory.appendingPathComponent(Self.sourcesFileName)
        return try await run(
            notes: try Data(contentsOf: directory.appendingPathComponent(Self.notesFileName)),
            sources: FileManager.default.fileExists(atPath: sourcesURL.path) ? try Data(contentsOf: sourcesURL) : nil)
    }

    /// Imports the contents of the two files, as a person picked them in the Files app (`sources` nil: not picked).
    public func run(notes notesFile: Data, sources sourcesFile: Data?) async throws -> LegacyImportSummary {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let notes = try decoder.decode([LegacyNote].self, from: notesFile)
        let sources = try sourcesFile.map { try decoder.decode([LegacySource].self, from: $0) } ?? []
        let summary = try await store.writer.write { db in
            var summary = LegacyImportSummary()
            let sourceIDs = try Self.sourceIDs(db, sources, &summary)
            for note in notes {
                try Self.importNote(db, note, sourceIDs: sourceIDs, &summary)
            }
            return summary
        }
        if summary.importedNotes + summary.createdSources + summary.createdSpecies > 0 { store.localWriteHappened() }
        return summary
    }

    /// The device's id for each old source id: the standard sources keep theirs, others are matched by
    /// name and type, and the rest are created here.
    private static func sourceIDs(_ db: Database, _ sources: [LegacySource], _ summary: inout LegacyImportSummary) throws -> [Int: Int] {
        var known = try CatalogSnapshot.load(db).sources
        var ids: [Int: Int] = [:]
        for old in sources {
            if (Source.iNaturalistID...Source.personalObservationID).contains(old.id) {
                ids[old.id] = old.id
            } else if let match = known.first(where: { $0.name.caseInsensitiveCompare(old.name) == .orderedSame && $0.sourceType == old.sourceType }) {
                ids[old.id] = match.id
            } else {
                let id = min(known.map(\.id).min() ?? 0, 0) - 1
                let source = Source(
                    id: id, sourceType: old.sourceType, name: old.name, description: old.description, author: old.author, year: old.year,
                    url: old.url, isbn: old.isbn, doi: old.doi, license: old.license, licenseURL: old.licenseURL)
                try LocalStore.saveRecord(db, .source(id), source, status: .pendingUpload)
                known.append(source)
                ids[old.id] = id
                summary.createdSources += 1
            }
        }
        return ids
    }

    private static func importNote(_ db: Database, _ old: LegacyNote, sourceIDs: [Int: Int], _ summary: inout LegacyImportSummary) throws {
        let sourceId = old.sourceId.map { sourceIDs[$0] ?? $0 } ?? Source.personalObservationID
        var name = Species.normalizedName(old.taxonomy.species)
        guard !name.isEmpty else {
            summary.problems.append("note \(old.id.wireString): it names no species")
            return
        }
        if let known = try LocalStore.record(db, .species(try LocalStore.storedSpeciesName(db, old.taxonomy.species))) as Species? {
            name = known.scientificName
        } else {
            var patch = SpeciesPatch()
            patch.scientificName = .value(name)
            patch.subgenus = old.taxonomy.subgenus.map(Patch.value) ?? .absent
            patch.section = old.taxonomy.section.map(Patch.value) ?? .absent
            patch.subsection = old.taxonomy.subsection.map(Patch.value) ?? .absent
            patch.complex = old.taxonomy.complex.map(Patch.value) ?? .absent
            do {
                let species = try Species(creating: patch)
                try LocalStore.saveRecord(db, .species(species.scientificName), species, status: .pendingUpload)
                name = species.scientificName
                summary.createdSpecies += 1
            } catch let error as OakError {
                summary.problems.append("note \(old.id.wireString) (\(name)): \(error.summary)")
                return
            }
        }
        let existing =
            try LocalNote.fetchOne(db, id: old.id)
            ?? LocalNote.fetchOne(db, species: name, sourceId: sourceId)
        guard existing == nil || existing?.syncStatus == .synced && existing?.serverVersion == 0 && existing?.id != old.id else {
            summary.skippedNotes += 1
            if let existing, !old.photoFileNames.isEmpty { summary.photoFileNames[existing.id, default: []] += old.photoFileNames }
            return
        }
        if !old.photoFileNames.isEmpty { summary.photoFileNames[old.id, default: []] += old.photoFileNames }
        // A starter-catalog copy of the same species and source gives way to the user's note.
        try existing?.delete(db)
        let species = try LocalStore.record(db, .species(name)) as Species?
        var note = LocalNote(
            server: Note(
                id: old.id, scientificName: name,
                taxonomy: NoteTaxonomy(subgenus: species?.subgenus, section: species?.section, subsection: species?.subsection, complex: species?.complex),
                fields: old.noteFields, sourceId: sourceId, createdAt: WireTime.milliseconds(old.createdAt),
                updatedAt: WireTime.milliseconds(old.updatedAt)))
        note.localVersion = 1
        note.syncStatus = .pendingUpload
        try note.insert(db)
        summary.importedNotes += 1
    }
}

/// A note as the original app's `species_notes.json` holds it (ISO 8601 dates, snake_case field names).
/// A missing `sourceId` means a personal observation; `photoFileNames` name files in the old app's `Photos` folder.
struct LegacyNote: Decodable {
    struct Taxonomy: Decodable {
        var subgenus: String?
        var section: String?
        var subsection: String?
        var complex: String?
        var species: String
    }

    var id: UUID
    var taxonomy: Taxonomy
    var fields: [String: String]
    var sourceId: Int?
    var createdAt: Date
    var updatedAt: Date
    var photoFileNames: [String]

    enum CodingKeys: String, CodingKey {
        case id, taxonomy, fields, sourceId, createdAt, updatedAt, photoFileNames
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        taxonomy = try container.decode(Taxonomy.self, forKey: .taxonomy)
        fields = try Self.decodeFields(container)
        sourceId = try container.decodeIfPresent(Int.self, forKey: .sourceId)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        updatedAt = try container.decode(Date.self, forKey: .updatedAt)
        photoFileNames = try container.decodeIfPresent([String].self, forKey: .photoFileNames) ?? []
    }

    /// `fields` in either form a file may hold: an object `{name: text}`, or the array `[name, text, name,
    /// text, ...]` that `JSONEncoder` writes for a dictionary whose key type is neither `String`, `Int` nor
    /// `CodingKeyRepresentable`. A missing or null `fields` is no fields; an odd-length array or a
    /// non-string element is a decoding error.
    private static func decodeFields(_ container: KeyedDecodingContainer<CodingKeys>) throws -> [String: String] {
        guard container.contains(.fields), try !container.decodeNil(forKey: .fields) else { return [:] }
        // Not an array: decode it as the object, whose decoding error is then the one reported.
        guard var list = try? container.nestedUnkeyedContainer(forKey: .fields) else {
            return try container.decode([String: String].self, forKey: .fields)
        }
        var fields: [String: String] = [:]
        while !list.isAtEnd {
            let name = try list.decode(String.self)
            guard !list.isAtEnd else {
                throw DecodingError.dataCorruptedError(
                    in: list, debugDescription: "fields: the name \"\(name)\" has no text (an odd number of elements)")
            }
            fields[name] = try list.decode(String.self)
        }
        return fields
    }

    /// The old field names, as the notes API names them.
    private static let fieldNames: [String: NoteFields.Field] = [
        "common_names": .commonNames, "leaf": .leaf, "acorn": .acorn, "bark": .bark, "twigs": .twigs, "buds": .buds, "form": .form,
        "range_habitat": .rangeHabitat, "field_notes": .fieldNotes, "resources": .resources,
    ]

    /// The fields, empty texts left out; unknown names are dropped.
    var noteFields: NoteFields {
        var result = NoteFields()
        for (name, text) in fields {
            guard let field = Self.fieldNames[name], !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { continue }
            result[field] = text
        }
        return result
    }
}

/// A source as the original app's `sources.json` holds it.
struct LegacySource: Decodable {
    var id: Int
    var sourceType: String
    var name: String
    var description: String?
    var author: String?
    var year: Int?
    var url: String?
    var isbn: String?
    var doi: String?
    var license: String?
    var licenseURL: String?

    enum CodingKeys: String, CodingKey {
        case id
        case sourceType = "source_type"
        case name, description, author, year, url, isbn, doi, license
        case licenseURL = "license_url"
    }
}
