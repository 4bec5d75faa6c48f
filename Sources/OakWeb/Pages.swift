import Foundation
import OakModels

// The values the templates read (by their property names, through reflection). Every page carries what the
// layout needs: its title, its description (`<meta name="description">` and Open Graph) and the search text.

/// A link to a page of this site.
struct PageLink {
    let name: String
    let href: String
}

/// A labelled piece of Markdown, rendered (`SafeMarkdown`).
struct RenderedField {
    let label: String
    let html: String

    /// The fields that hold text, in order; nil when none does.
    static func list(_ fields: [(String, String?)]) -> [RenderedField] {
        fields.compactMap { label, text in
            guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
            return RenderedField(label: label, html: SafeMarkdown.html(text))
        }
    }
}

/// Paths of the site's pages; names and keys percent-encoded as one path segment.
enum SitePath {
    static func species(_ name: String) -> String { "/species/\(segment(name))" }
    static func taxon(_ level: TaxonLevel, _ name: String) -> String { "/taxa/\(level.rawValue)/\(segment(name))" }
    static func source(_ id: Int) -> String { "/sources/\(id)" }

    private static let segmentCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;?#"))

    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? ""
    }

    static func speciesLinks(_ names: [String]) -> [PageLink] {
        names.map { PageLink(name: fullName($0), href: species($0)) }
    }
}

/// The name a species goes by on a page: "Quercus alba".
func fullName(_ name: String) -> String { "Quercus \(name)" }

struct HomePage {
    struct Count {
        let label: String
        let value: Int
    }

    /// The landing page's title is the site's name alone.
    let home = true
    let title = "Oak Compendium"
    let description: String
    let query: String? = nil
    let counts: [Count]

    init(_ stats: CatalogStats) {
        description = "An oak compendium of \(stats.species) species and hybrids, with descriptions from \(stats.sources) sources side by side."
        counts = [
            Count(label: "species", value: stats.speciesCount), Count(label: "hybrids", value: stats.hybridCount),
            Count(label: "taxa", value: stats.taxaCount), Count(label: "sources", value: stats.sourceCount),
        ]
    }
}

struct SearchPage {
    struct TaxonResult {
        let name: String
        let level: String
        let href: String
    }

    let title: String
    let description: String
    let query: String?
    let species: [PageLink]
    let taxa: [TaxonResult]
    let sources: [PageLink]
    let nothing: Bool

    init(_ result: CatalogSearchResult) {
        title = result.query.isEmpty ? "Search" : "Search: \(result.query)"
        description = "Species, taxa and sources of the oak compendium matching a search."
        query = result.query
        species = SitePath.speciesLinks(result.species.map(\.scientificName))
        taxa = result.taxa.map { TaxonResult(name: $0.name, level: $0.level.rawValue, href: SitePath.taxon($0.level, $0.name)) }
        sources = result.sources.map { PageLink(name: $0.name, href: SitePath.source($0.id)) }
        nothing = !result.query.isEmpty && species.isEmpty && taxa.isEmpty && sources.isEmpty
    }
}

struct SpeciesPage {
    struct Rank {
        let level: String
        let name: String
        let href: String
    }

    /// One source's description of the species.
    struct SourceColumn {
        let name: String
        let href: String
        let url: String?
        let license: String?
        let licenseURL: String?
        let preferred: Bool
        let fields: [RenderedField]
    }

    let title: String
    let description: String
    let query: String? = nil
    let name: String
    let author: String?
    let isHybrid: Bool
    let ranks: [Rank]
    let parents: [PageLink]
    let hybrids: [PageLink]
    let related: [PageLink]
    let varieties: String?
    let synonyms: String?
    let conservationStatus: String?
    let localNames: String?
    let externalLinks: [PageLink]
    let sources: [SourceColumn]

    init(_ full: SpeciesFull, sources known: [Source]) {
        let species = full.species
        name = fullName(species.scientificName)
        title = name
        author = species.author
        isHybrid = species.isHybrid
        let levels: [(TaxonLevel, String?)] = [
            (.subgenus, species.subgenus), (.section, species.section), (.subsection, species.subsection), (.complex, species.complex),
        ]
        ranks = levels.compactMap { level, taxon in
            taxon.map { Rank(level: level.rawValue, name: $0, href: SitePath.taxon(level, $0)) }
        }
        parents = SitePath.speciesLinks([species.parent1, species.parent2].compactMap { $0 })
        hybrids = SitePath.speciesLinks(species.hybrids)
        related = SitePath.speciesLinks(species.closelyRelatedTo)
        varieties = species.subspeciesVarieties.isEmpty ? nil : species.subspeciesVarieties.joined(separator: ", ")
        synonyms = species.synonyms.isEmpty ? nil : species.synonyms.joined(separator: ", ")
        conservationStatus = species.conservationStatus
        let names = full.sources.flatMap(\.record.localNames)
        localNames = names.isEmpty ? nil : Array(NSOrderedSet(array: names)).compactMap { $0 as? String }.joined(separator: ", ")
        externalLinks = species.externalLinks.compactMap(Self.link)
        let byID = Dictionary(known.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.sources = full.sources.map { attributed in
            let record = attributed.record
            let source = byID[record.sourceId]
            return SourceColumn(
                name: attributed.sourceName, href: SitePath.source(record.sourceId),
                url: (record.url ?? attributed.sourceURL).flatMap(WebText.safeURL), license: source?.license,
                licenseURL: source?.licenseURL.flatMap(WebText.safeURL), preferred: record.isPreferred,
                fields: RenderedField.list([
                    ("Range", record.range), ("Growth habit", record.growthHabit), ("Leaves", record.leaves), ("Flowers", record.flowers),
                    ("Fruits", record.fruits), ("Bark", record.bark), ("Twigs", record.twigs), ("Buds", record.buds),
                    ("Hardiness and habitat", record.hardinessHabitat), ("Miscellaneous", record.miscellaneous),
                ]))
        }
        var summary = "\(name)\(species.isHybrid ? ", a hybrid oak" : ", an oak")"
        if let section = species.section { summary += " of section \(section)" }
        summary += ", described by \(full.sources.count) source\(full.sources.count == 1 ? "" : "s")."
        description = summary
    }

    /// An external link (`{"name", "url"}` or a bare URL) the page may show.
    private static func link(_ value: JSONValue) -> PageLink? {
        switch value {
        case .string(let url):
            return WebText.safeURL(url).map { PageLink(name: $0, href: $0) }
        case .object(let fields):
            guard case .string(let url)? = fields["url"], let safe = WebText.safeURL(url) else { return nil }
            if case .string(let name)? = fields["name"], !name.isEmpty { return PageLink(name: name, href: safe) }
            return PageLink(name: safe, href: safe)
        default:
            return nil
        }
    }
}

struct TaxonomyPage {
    /// A taxon with the taxa under it.
    struct Node {
        let name: String
        let level: String
        let href: String
        let count: Int
        let children: [Node]
    }

    let title = "Taxonomy"
    let description = "The oak genus as a tree: subgenera, sections, subsections and complexes, with their species."
    let query: String? = nil
    let roots: [Node]

    init(_ taxa: [Taxon]) {
        // A taxon's parent is named at the level above its own.
        func key(_ level: TaxonLevel?, _ name: String) -> String { "\(level?.rawValue ?? "")/\(name)" }
        let byParent = Dictionary(grouping: taxa) { taxon in taxon.parent.map { key(taxon.level.parentLevel, $0) } ?? "" }
        func node(_ taxon: Taxon) -> Node {
            let children = (byParent[key(taxon.level, taxon.name)] ?? []).filter { $0.level == taxon.level.childLevel }
            return Node(
                name: taxon.name, level: taxon.level.rawValue, href: SitePath.taxon(taxon.level, taxon.name), count: taxon.speciesCount ?? 0,
                children: children.sorted { $0.name < $1.name }.map(node))
        }
        // A taxon whose parent is not among the taxa is shown at the top, so none is left out.
        let known = Set(taxa.map { key($0.level, $0.name) })
        roots = taxa.filter { taxon in
            guard let parent = taxon.parent, taxon.level != .subgenus else { return true }
            return !known.contains(key(taxon.level.parentLevel, parent))
        }
        .sorted { ($0.level.depth, $0.name) < ($1.level.depth, $1.name) }.map(node)
    }
}

struct TaxonPage {
    let title: String
    let description: String
    let query: String? = nil
    let name: String
    let level: String
    let author: String?
    let parent: PageLink?
    let notes: String?
    let species: [PageLink]

    init(_ taxon: Taxon, species: [Species]) {
        name = taxon.name
        level = taxon.level.rawValue
        title = "\(taxon.level.rawValue.capitalized) \(taxon.name)"
        description = "The oaks of \(taxon.level.rawValue) \(taxon.name): \(species.count) species and hybrids."
        author = taxon.author
        if let level = taxon.level.parentLevel, let name = taxon.parent {
            parent = PageLink(name: "\(level.rawValue) \(name)", href: SitePath.taxon(level, name))
        } else {
            parent = nil
        }
        notes = taxon.notes.map(SafeMarkdown.html)
        self.species = SitePath.speciesLinks(species.map(\.scientificName))
    }
}

struct SourcesPage {
    struct Row {
        let name: String
        let href: String
        let author: String?
        let year: Int?
        let count: Int
    }

    let title = "Sources"
    let description = "The sources the compendium's descriptions come from."
    let query: String? = nil
    let sources: [Row]

    init(_ sources: [Source]) {
        self.sources = sources.map { Row(name: $0.name, href: SitePath.source($0.id), author: $0.author, year: $0.year, count: $0.speciesCount ?? 0) }
    }
}

struct SourcePage {
    let title: String
    let description: String
    let query: String? = nil
    let name: String
    let kind: String
    let author: String?
    let year: Int?
    let url: String?
    let license: String?
    let licenseURL: String?
    let isbn: String?
    let doi: String?
    let about: String?
    let notes: String?
    let species: [PageLink]

    init(_ source: Source, species: [Species]) {
        name = source.name
        title = source.name
        description = "\(source.name): the \(species.count) oak species it describes in the compendium."
        kind = source.sourceType
        author = source.author
        year = source.year
        url = source.url.flatMap(WebText.safeURL)
        license = source.license
        licenseURL = source.licenseURL.flatMap(WebText.safeURL)
        isbn = source.isbn
        doi = source.doi
        about = source.description.map(SafeMarkdown.html)
        notes = source.notes.map(SafeMarkdown.html)
        self.species = SitePath.speciesLinks(species.map(\.scientificName))
    }
}

struct ProblemPage {
    let title: String
    let description: String
    let query: String? = nil
    let message: String

    init(title: String, message: String) {
        self.title = title
        description = message
        self.message = message
    }
}
