import Foundation
import GRDB
import OakModels
import OakSQLite

extension LocalStore {
    /// Fills an empty device with a catalog in the export format (the app's bundled starter catalog), so
    /// every species is there offline from the first launch. Its records count as the server's: the first
    /// sync replaces them with the server's own and removes what the server lacks. Does nothing, and
    /// returns false, once the device holds a catalog or has synced.
    @discardableResult
    public func importStarterCatalog(_ file: ExportFile) async throws -> Bool {
        try await writer.write { db in
            let hasCatalog = try Bool.fetchOne(db, cachedSQL: "SELECT EXISTS (SELECT 1 FROM catalog)") ?? false
            guard !hasCatalog, try Self.cursor(db) == nil else { return false }
            for entry in file.sources {
                try Self.saveRecord(db, .source(entry.source.id), entry.source, status: .synced)
            }
            for entry in file.species {
                let species = entry.asSpecies
                try Self.saveRecord(db, .species(species.scientificName), species, status: .synced)
                let taxonomy = NoteTaxonomy(subgenus: species.subgenus, section: species.section, subsection: species.subsection, complex: species.complex)
                for data in entry.sources {
                    let record = data.record(of: species.scientificName)
                    let note = Note(
                        id: record.uuid, scientificName: species.scientificName, taxonomy: taxonomy, fields: NoteFields(record),
                        sourceId: record.sourceId, createdAt: record.createdAt, updatedAt: record.updatedAt, reference: NoteReference(record))
                    try LocalNote(server: note).insert(db, onConflict: .ignore)
                }
            }
            return true
        }
    }
}
