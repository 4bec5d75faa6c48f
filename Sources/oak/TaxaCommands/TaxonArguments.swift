import ArgumentParser
import OakModels

/// The two arguments that name a taxon: its level and its name.
struct TaxonArguments: ParsableArguments {
    @Argument(help: "subgenus, section, subsection or complex.") var level: String
    @Argument(help: "The taxon's name.") var name: String

    func parsedLevel() throws -> TaxonLevel {
        try TaxaCommand.level(level)
    }
}
