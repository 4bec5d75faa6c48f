import ArgumentParser
import OakCLI

/// `oak export [FILE]`.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write the compendium in the export format (quercus_data.json), to a file or stdout.")

    @Argument(help: "The file to write (default: standard output).") var file: String?
    @Option(name: .shortAndLong, help: "The file to write (the same as FILE).") var output: String?
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            if file != nil && output != nil && file != output { throw CLIError.usage("Give the file once: FILE or --output") }
            try await DataCommands.export(context, to: file ?? output)
        }
    }
}
