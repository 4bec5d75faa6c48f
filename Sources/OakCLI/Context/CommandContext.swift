import Foundation

/// What a command body needs: the catalog it works on, how to print, and where.
public struct CommandContext: Sendable {
    public var catalog: any Catalog
    public var format: OutputFormat
    public var output: OutputStream
    public var errors: OutputStream
    /// Whether standard error is a terminal (progress bars are drawn only there).
    public var interactive: Bool

    public init(
        catalog: any Catalog, format: OutputFormat = .text, output: OutputStream = .standardOutput,
        errors: OutputStream = .standardError, interactive: Bool = isatty(STDERR_FILENO) == 1
    ) {
        self.catalog = catalog
        self.format = format
        self.output = output
        self.errors = errors
        self.interactive = interactive
    }

    /// Prints a value as JSON (`--json`) or as the text `render` makes of it.
    public func print<Value: Encodable>(_ value: Value, _ render: (Value) -> String) throws {
        switch format {
        case .json: output.line(try CLIJSON.text(value))
        case .text: output.line(render(value))
        }
    }
}
