import OakModels
import OakStore

extension DataChanges {
    /// The most changes read at once; past it, everything counts as changed.
    package static let feedLimit = 1000

    /// SQL (both backends) of the change-log entries after a position (`$1`/`?1`), up to a limit, with the
    /// species of each note's row.
    package static func feedQuery(position: String, limit: String) -> String {
        """
        SELECT c.entity, c.entity_key, ss.scientific_name AS row_species
        FROM change_log c LEFT JOIN species_sources ss ON c.entity = 'notes' AND ss.uuid = c.entity_key
        WHERE c.seq > \(position) ORDER BY c.seq LIMIT \(limit)
        """
    }
}
