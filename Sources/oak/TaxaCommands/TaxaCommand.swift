import ArgumentParser
import OakCLI
import OakModels

/// `oak taxa list|show|find|new|edit|delete|import`.
struct TaxaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "taxa", abstract: "Subgenera, sections, subsections and complexes.",
        subcommands: [
            TaxaListCommand.self, TaxaShowCommand.self, TaxaFindCommand.self, TaxaNewCommand.self, TaxaEditCommand.self, TaxaDeleteCommand.self,
            TaxaImportCommand.self,
        ])

    /// Parses a level given as text.
    static func level(_ text: String) throws -> TaxonLevel {
        guard let level = TaxonLevel(rawValue: text) else {
            throw CLIError.usage("The level must be one of: \(TaxonLevel.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return level
    }
}
