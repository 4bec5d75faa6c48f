import Foundation
import OakModels

/// `oak new`, `oak edit`, `oak taxa new|edit`, `oak source new|edit`: records written in the editor.
public enum EditCommands {
    // MARK: Species

    static func speciesFields(_ species: Species?) -> [YAMLDocument.Field] {
        [
            .init("author", "the taxonomic authority, e.g. L. or Michx.", species?.author),
            .init("is_hybrid", "true or false", species?.isHybrid ?? false),
            .init("conservation_status", "IUCN category: \(Species.conservationStatuses.joined(separator: ", "))", species?.conservationStatus),
            .init("subgenus", Species.subgenera.joined(separator: ", "), species?.subgenus),
            .init("section", "the section, e.g. Lobatae", species?.section),
            .init("subsection", "the subsection, if any", species?.subsection),
            .init("complex", "the species complex, if any", species?.complex),
            .init("parent1", "a hybrid's first parent (a species name)", species?.parent1),
            .init("parent2", "a hybrid's second parent", species?.parent2),
            .init("hybrids", "hybrids of this species: a list of names", species?.hybrids ?? []),
            .init("closely_related_to", "a list of species names", species?.closelyRelatedTo ?? []),
            .init("subspecies_varieties", "a list of subspecies and varieties", species?.subspeciesVarieties ?? []),
            .init("synonyms", "a list of other names, with authors", species?.synonyms ?? []),
        ]
    }

    public static func newSpecies(_ context: CommandContext, name: String, editor: Editor) async throws {
        if let existing = try? await context.catalog.species(named: name) {
            throw CLIError.conflict("Quercus \(existing.scientificName) already exists; 'oak edit \(existing.scientificName)' changes it")
        }
        let document = YAMLDocument.render(title: ["New species: Quercus \(Species.normalizedName(name))"], fields: speciesFields(nil))
        let created = try await editor.edit(document, name: "species-\(name)", messages: context.errors) { text in
            var patch = try DecodingErrors.decode(SpeciesPatch.self, from: try YAMLDocument.json(text))
            patch.scientificName = .value(name)
            return try await context.catalog.createSpecies(patch)
        }
        guard let created else { return context.errors.line("Nothing created.") }
        context.errors.line("Created \(created.scientificName) in the \(context.catalog.location).")
    }

    public static func editSpecies(_ context: CommandContext, name: String, editor: Editor) async throws {
        let species = try await context.catalog.species(named: name)
        let document = YAMLDocument.render(title: ["Quercus \(species.scientificName)"], fields: speciesFields(species))
        let saved = try await editor.edit(document, name: "species-\(species.scientificName)", messages: context.errors) { text in
            let patch = try DecodingErrors.decode(SpeciesPatch.self, from: try YAMLDocument.json(text))
            return try await context.catalog.updateSpecies(named: species.scientificName, with: patch)
        }
        context.errors.line(saved == nil ? "No changes." : "Saved \(species.scientificName).")
    }

    // MARK: Taxa

    static func taxonFields(_ taxon: Taxon?, level: TaxonLevel) -> [YAMLDocument.Field] {
        [
            .init("parent", level.parentLevel.map { "the \($0.rawValue) it belongs to" } ?? "none: a subgenus has no parent", taxon?.parent),
            .init("author", "the taxonomic authority", taxon?.author),
            .init("notes", "free text", taxon?.notes),
        ]
    }

    public static func newTaxon(_ context: CommandContext, level: TaxonLevel, name: String, editor: Editor) async throws {
        if (try? await context.catalog.taxon(level: level, name: name)) != nil {
            throw CLIError.conflict("The \(level.rawValue) \(name) already exists; 'oak taxa edit \(level.rawValue) \(name)' changes it")
        }
        let document = YAMLDocument.render(title: ["New \(level.rawValue): \(name)"], fields: taxonFields(nil, level: level))
        let created = try await editor.edit(document, name: "taxon-\(name)", messages: context.errors) { text in
            var patch = try DecodingErrors.decode(TaxonPatch.self, from: try YAMLDocument.json(text))
            patch.name = .value(name)
            patch.level = .value(level.rawValue)
            return try await context.catalog.createTaxon(patch)
        }
        context.errors.line(created.map { "Created \($0.level.rawValue) \($0.name)." } ?? "Nothing created.")
    }

    public static func editTaxon(_ context: CommandContext, level: TaxonLevel, name: String, editor: Editor) async throws {
        let taxon = try await context.catalog.taxon(level: level, name: name)
        let document = YAMLDocument.render(title: ["\(taxon.name) (\(level.rawValue))"], fields: taxonFields(taxon, level: level))
        let saved = try await editor.edit(document, name: "taxon-\(name)", messages: context.errors) { text in
            let patch = try DecodingErrors.decode(TaxonPatch.self, from: try YAMLDocument.json(text))
            return try await context.catalog.updateTaxon(level: level, name: taxon.name, with: patch)
        }
        context.errors.line(saved == nil ? "No changes." : "Saved \(level.rawValue) \(taxon.name).")
    }

    // MARK: Sources

    static func sourceFields(_ source: Source?) -> [YAMLDocument.Field] {
        [
            .init("name", "required", source?.name),
            .init("source_type", "required: Website, Book, Personal Observation, Journal Article, Database or Other", source?.sourceType),
            .init("description", "what the source is", source?.description),
            .init("author", "who wrote it", source?.author),
            .init("year", "the year published (a whole number)", source?.year),
            .init("url", "its address", source?.url),
            .init("isbn", "for a book", source?.isbn),
            .init("doi", "for an article", source?.doi),
            .init("license", "the license of its text, e.g. CC BY-NC 4.0", source?.license),
            .init("license_url", "the license's address", source?.licenseURL),
            .init("notes", "free text", source?.notes),
        ]
    }

    public static func newSource(_ context: CommandContext, editor: Editor) async throws {
        let document = YAMLDocument.render(title: ["New source"], fields: sourceFields(nil))
        let created = try await editor.edit(document, name: "source-new", messages: context.errors) { text in
            try await context.catalog.createSource(try DecodingErrors.decode(SourcePatch.self, from: try YAMLDocument.json(text)))
        }
        context.errors.line(created.map { "Created source \($0.id) (\($0.name))." } ?? "Nothing created.")
    }

    public static func editSource(_ context: CommandContext, id: Int, editor: Editor) async throws {
        let source = try await context.catalog.source(id: id)
        let document = YAMLDocument.render(title: ["Source \(id)"], fields: sourceFields(source))
        let saved = try await editor.edit(document, name: "source-\(id)", messages: context.errors) { text in
            try await context.catalog.updateSource(id: id, with: try DecodingErrors.decode(SourcePatch.self, from: try YAMLDocument.json(text)))
        }
        context.errors.line(saved == nil ? "No changes." : "Saved source \(id).")
    }
}
