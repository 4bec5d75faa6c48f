import Foundation

/// What a command body needs: the catalog it works on, how to print, and where.
public struct CommandContext: Sendable {
    public var catalog: any CatalogAccess
    public var format: OutputFormat
    public var output: OutputStream
    public var errors: OutputStream
    /// Whether standard error is a terminal (progress bars are drawn only there).
    public var interactive: Bool
    /// Where the catalog came from (remote notes use the profile's sync cache).
    public var target: Target
    public var environment: [String: String]

    public init(
        catalog: any CatalogAccess, target: Target, environment: [String: String], format: OutputFormat = .text,
        output: OutputStream = .standardOutput, errors: OutputStream = .standardError, interactive: Bool = isatty(STDERR_FILENO) == 1
    ) {
        self.catalog = catalog
        self.target = target
        self.environment = environment
        self.format = format
        self.output = output
        self.errors = errors
        self.interactive = interactive
    }

    /// The notes: the database's in local mode, the profile's sync cache in remote mode.
    public func noteBook() throws -> any NoteBook {
        switch target {
        case .local:
            return LocalNoteBook(catalog: catalog)
        case .remote(let profile, _, _):
            guard let remote = catalog as? RemoteCatalog else { return LocalNoteBook(catalog: catalog) }
            return try SyncedNoteBook(cache: SyncedNoteBook.cacheFile(profile: profile, environment: environment), client: remote.client)
        }
    }

    /// Prints a value as JSON (`--json`) or as the text `render` makes of it.
    public func print<Value: Encodable>(_ value: Value, _ render: (Value) -> String) throws {
        switch format {
        case .json: output.line(try CLIJSON.text(value))
        case .text: output.line(render(value))
        }
    }
}
