import Foundation
import OakModels
import OakSync
import Observation

/// One source in the sources list.
public struct SourceRow: Hashable, Sendable, Identifiable {
    public var source: Source
    public var state: CatalogSyncState

    public var id: Int { source.id }
}

/// The source form's text fields (name, type, author, year, URL, license).
public struct SourceForm: Hashable, Sendable {
    public var name = ""
    public var sourceType = "Book"
    public var author = ""
    public var year = ""
    public var url = ""
    public var license = ""

    /// The source types the picker offers.
    public static let types = ["Book", "Journal Article", "Website", "Personal Observation", "Herbarium", "Other"]

    public init() {}

    /// The form filled from a source.
    public init(_ source: Source) {
        name = source.name
        sourceType = source.sourceType
        author = source.author ?? ""
        year = source.year.map(String.init) ?? ""
        url = source.url ?? ""
        license = source.license ?? ""
    }

    /// The form as a source patch: empty fields cleared; a year that is not a number is a validation error.
    func patch() throws -> SourcePatch {
        func text(_ value: String) -> Patch<String> {
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? .null : .value(trimmed)
        }
        var patch = SourcePatch()
        patch.name = text(name)
        patch.sourceType = text(sourceType)
        patch.author = text(author)
        patch.url = text(url)
        patch.license = text(license)
        let yearText = year.trimmingCharacters(in: .whitespaces)
        if yearText.isEmpty {
            patch.year = .null
        } else if let value = Int(yearText) {
            patch.year = .value(value)
        } else {
            throw OakError.invalid("year", "must be a number, like 2009")
        }
        return patch
    }
}

/// The sources: list, add and edit; changes are saved here first and synced like notes.
@Observable @MainActor
public final class SourcesModel {
    public private(set) var rows: [SourceRow] = []
    /// Why the last save failed, naming the field.
    public private(set) var errorMessage: String?
    var repository: OfflineCatalog?
    private let store: LocalStore
    private var observing: Task<Void, Never>?

    init(store: LocalStore) {
        self.store = store
    }

    /// Follows the catalog's sources.
    func start() {
        guard observing == nil else { return }
        observing = store.observeCatalog().follow { [weak self] catalog in
            self?.rows = catalog.sources.map { SourceRow(source: $0, state: catalog.syncState(ofSource: $0.id)) }
                .sorted { ($0.source.name.lowercased(), $0.source.id) < ($1.source.name.lowercased(), $1.source.id) }
        }
    }

    /// The form for a new source, or for the source with `id`.
    public func form(for id: Int?) -> SourceForm {
        id.flatMap { id in rows.first { $0.source.id == id } }.map { SourceForm($0.source) } ?? SourceForm()
    }

    /// Saves the form as a new source (`id` nil) or over the source with `id`; false with `errorMessage` when invalid.
    @discardableResult
    public func save(_ form: SourceForm, id: Int?) async -> Bool {
        guard let repository else { return false }
        errorMessage = nil
        do {
            let patch = try form.patch()
            if let id {
                try await repository.updateSource(id: id, with: patch)
            } else {
                try await repository.createSource(patch)
            }
            return true
        } catch let error as OakError {
            errorMessage = error.summary
        } catch {
            errorMessage = "\(error)"
        }
        return false
    }
}
