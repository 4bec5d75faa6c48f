import Foundation
import OakModels

// The values the templates read (by their property names, through reflection). Every page carries what the
// layout needs in its `frame`.

/// Who asked for a page: the path asked for, and who is signed in (nil when no one is).
public struct PageRequest: Sendable {
    public let path: String
    public let viewer: Viewer?

    public init(path: String, viewer: Viewer?) {
        self.path = path
        self.viewer = viewer
    }
}

/// A signed-in person as the pages show them: their name, their forms' token, and what they may edit.
public struct Viewer: Sendable {
    public let name: String
    public let formToken: String
    public let editsSpecies: Bool
    public let editsTaxa: Bool
    public let editsSources: Bool
    public let editsNotes: Bool

    public init(name: String, formToken: String, abilities: (Ability) -> Bool) {
        self.name = name
        self.formToken = formToken
        editsSpecies = abilities(.speciesWrite)
        editsTaxa = abilities(.taxaWrite)
        editsSources = abilities(.sourcesWrite)
        editsNotes = abilities(.notesWrite)
    }
}

/// What the layout shows around a page: its title, its description (`<meta name="description">` and Open
/// Graph), the search text, and the signed-in person's name, form token and what they may edit (flat, so a
/// template reads `frame.editsSpecies`).
struct PageFrame {
    let title: String
    let description: String
    var query: String? = nil
    /// The landing page's title is the site's name alone.
    var home = false
    private(set) var signedIn = false
    private(set) var viewerName = ""
    private(set) var formToken = ""
    private(set) var editsSpecies = false
    private(set) var editsTaxa = false
    private(set) var editsSources = false
    private(set) var editsNotes = false
    /// The sign-in page, coming back here after.
    private(set) var signInHref = APIRoute.signInForm.path

    init(title: String, description: String, query: String? = nil, home: Bool = false) {
        self.title = title
        self.description = description
        self.query = query
        self.home = home
    }

    /// The frame of a page answering `request`.
    mutating func show(to request: PageRequest) {
        signInHref = APIRoute.signInForm.path + "?next=" + (request.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/")
        guard let viewer = request.viewer else { return }
        signedIn = true
        viewerName = viewer.name
        formToken = viewer.formToken
        editsSpecies = viewer.editsSpecies
        editsTaxa = viewer.editsTaxa
        editsSources = viewer.editsSources
        editsNotes = viewer.editsNotes
    }
}

/// A page: a value the templates read, with its frame.
protocol FramedPage {
    var frame: PageFrame { get set }
}

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

/// Paths of the site's pages (as `APIRoute` describes them); names and keys percent-encoded as one path segment.
public enum SitePath {
    public static func species(_ name: String) -> String { page(.speciesPage, name) }
    public static func taxon(_ level: TaxonLevel, _ name: String) -> String { page(.taxonPage, level.rawValue, name) }
    public static func source(_ id: Int) -> String { page(.sourcePage, String(id)) }
    /// The live updates of a species' page (`WebEventsController`).
    public static func speciesEvents(_ name: String) -> String { page(.speciesEvents, name) }

    // The forms (`WebEditController`): `/edit/…` for a record, `/new/…` to add one.
    public static func speciesForm(_ name: String) -> String { page(.speciesForm, name) }
    public static func descriptionForm(_ name: String, _ sourceId: Int) -> String { page(.descriptionForm, name, String(sourceId)) }
    public static func notesForm(_ name: String) -> String { page(.notesForm, name) }
    public static func newDescriptionForm(_ name: String) -> String { page(.newDescriptionForm, name) }
    public static func sourceForm(_ id: Int) -> String { page(.sourceForm, String(id)) }
    public static func taxonForm(_ level: TaxonLevel, _ name: String) -> String { page(.taxonForm, level.rawValue, name) }

    private static func page(_ route: APIRoute, _ values: String...) -> String {
        route.path(filledWith: values, encodedBy: segment)
    }

    private static let segmentCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;?#"))

    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? ""
    }

    static func speciesLinks(_ names: [String]) -> [PageLink] {
        names.map { PageLink(name: Species.fullName($0), href: species($0)) }
    }
}

struct HomePage: FramedPage {
    struct Count {
        let label: String
        let value: Int
    }

    var frame: PageFrame
    let counts: [Count]

    init(_ stats: CatalogStats) {
        frame = PageFrame(
            title: "Oak Compendium",
            description: "An oak compendium of \(stats.species) species and hybrids, with descriptions from \(stats.sources) sources side by side.",
            home: true)
        counts = [
            Count(label: "species", value: stats.speciesCount), Count(label: "hybrids", value: stats.hybridCount),
            Count(label: "taxa", value: stats.taxaCount), Count(label: "sources", value: stats.sourceCount),
        ]
    }
}

struct SearchPage: FramedPage {
    struct TaxonResult {
        let name: String
        let level: String
        let href: String
    }

    var frame: PageFrame
    let species: [PageLink]
    let taxa: [TaxonResult]
    let sources: [PageLink]
    let nothing: Bool

    init(_ result: CatalogSearchResult) {
        frame = PageFrame(
            title: result.query.isEmpty ? "Search" : "Search: \(result.query)",
            description: "Species, taxa and sources of the oak compendium matching a search.", query: result.query)
        species = SitePath.speciesLinks(result.species.map(\.scientificName))
        taxa = result.taxa.map { TaxonResult(name: $0.name, level: $0.level.rawValue, href: SitePath.taxon($0.level, $0.name)) }
        sources = result.sources.map { PageLink(name: $0.name, href: SitePath.source($0.id)) }
        nothing = !result.query.isEmpty && species.isEmpty && taxa.isEmpty && sources.isEmpty
    }
}

struct SpeciesPage: FramedPage {
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
        /// The owner's own notes (the personal-observation source), edited as notes.
        let isNotes: Bool
        let editHref: String
    }

    var frame: PageFrame
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
    let hasNotes: Bool
    let editHref: String
    let notesHref: String
    let newDescriptionHref: String
    /// The page's live updates (`WebEventsController`), from the position it was rendered at.
    let liveHref: String

    init(_ full: SpeciesFull, sources known: [Source], since: Int64) {
        let species = full.species
        name = Species.fullName(species.scientificName)
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
                ]),
                isNotes: record.sourceId == Source.personalObservationID,
                editHref: record.sourceId == Source.personalObservationID
                    ? SitePath.notesForm(species.scientificName) : SitePath.descriptionForm(species.scientificName, record.sourceId))
        }
        hasNotes = full.sources.contains { $0.record.sourceId == Source.personalObservationID }
        editHref = SitePath.speciesForm(species.scientificName)
        notesHref = SitePath.notesForm(species.scientificName)
        newDescriptionHref = SitePath.newDescriptionForm(species.scientificName)
        liveHref = SitePath.speciesEvents(species.scientificName) + "?since=\(since)"
        var summary = "\(name)\(species.isHybrid ? ", a hybrid oak" : ", an oak")"
        if let section = species.section { summary += " of section \(section)" }
        summary += ", described by \(full.sources.count) source\(full.sources.count == 1 ? "" : "s")."
        frame = PageFrame(title: name, description: summary)
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

struct TaxonomyPage: FramedPage {
    /// A taxon with the taxa under it.
    struct Node {
        let name: String
        let level: String
        let href: String
        let count: Int
        let children: [Node]
    }

    var frame = PageFrame(
        title: "Taxonomy", description: "The oak genus as a tree: subgenera, sections, subsections and complexes, with their species.")
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

struct TaxonPage: FramedPage {
    var frame: PageFrame
    let name: String
    let level: String
    let author: String?
    let parent: PageLink?
    let notes: String?
    let species: [PageLink]
    let editHref: String

    init(_ taxon: Taxon, species: [Species]) {
        name = taxon.name
        level = taxon.level.rawValue
        frame = PageFrame(
            title: "\(taxon.level.rawValue.capitalized) \(taxon.name)",
            description: "The oaks of \(taxon.level.rawValue) \(taxon.name): \(species.count) species and hybrids.")
        editHref = SitePath.taxonForm(taxon.level, taxon.name)
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

struct SourcesPage: FramedPage {
    struct Row {
        let name: String
        let href: String
        let author: String?
        let year: Int?
        let count: Int
    }

    var frame = PageFrame(title: "Sources", description: "The sources the compendium's descriptions come from.")
    let sources: [Row]

    init(_ sources: [Source]) {
        self.sources = sources.map { Row(name: $0.name, href: SitePath.source($0.id), author: $0.author, year: $0.year, count: $0.speciesCount ?? 0) }
    }
}

struct SourcePage: FramedPage {
    var frame: PageFrame
    let id: Int
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
        id = source.id
        name = source.name
        frame = PageFrame(title: source.name, description: "\(source.name): the \(species.count) oak species it describes in the compendium.")
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

struct ProblemPage: FramedPage {
    var frame: PageFrame
    let message: String

    init(title: String, message: String) {
        frame = PageFrame(title: title, description: message)
        self.message = message
    }
}

/// An edit form as a page: a record's fields with the text to show, the errors of a refused submission beside
/// their fields, and, after a conflict, what is saved now beside each field that differs from the submission.
struct FormPage: FramedPage {
    struct ShownField {
        struct Option {
            let value: String
            let label: String
            let selected: Bool
        }

        let id: String
        let key: String
        let label: String
        let hint: String?
        let value: String
        let error: String?
        /// After a conflict: the field's text as saved now, when it differs from the submitted text.
        let saved: String?
        let isLine: Bool
        let isNumber: Bool
        let isArea: Bool
        let rows: Int
        let isFlag: Bool
        let checked: Bool
        let isChoice: Bool
        let options: [Option]
    }

    var frame: PageFrame
    let heading: String
    let action: String
    let cancelHref: String
    let submitLabel: String
    let version: String
    let fields: [ShownField]
    /// Errors that name no field of the form.
    let problems: [String]
    let conflict: Bool
    let signedOut: Bool

    init(_ form: EditForm, heading: String, action: String, cancelHref: String, submitLabel: String, state: FormState) {
        frame = PageFrame(title: heading, description: heading)
        self.heading = heading
        self.action = action
        self.cancelHref = cancelHref
        self.submitLabel = submitLabel
        version = state.version
        conflict = state.saved != nil
        signedOut = state.signedOut
        var unclaimed = state.errors
        fields = form.fields.map { field in
            let claimed = unclaimed.filter { $0.field == field.key || $0.field.hasSuffix(".\(field.key)") }
            unclaimed.removeAll { $0.field == field.key || $0.field.hasSuffix(".\(field.key)") }
            let value = state.values[field.key] ?? ""
            let saved = state.saved.flatMap { saved in (saved[field.key] ?? "") == value ? nil : (saved[field.key] ?? "") }
            var options: [ShownField.Option] = []
            if case .choice(let choices, _) = field.kind {
                options =
                    [ShownField.Option(value: "", label: "—", selected: value.isEmpty)]
                    + choices.map { ShownField.Option(value: $0.value, label: $0.label, selected: $0.value == value) }
            }
            let kind = field.kind
            let isArea: Bool
            let rows: Int
            switch kind {
            case .text: (isArea, rows) = (true, 5)
            case .list, .links: (isArea, rows) = (true, 3)
            default: (isArea, rows) = (false, 0)
            }
            let isFlag = if case .flag = kind { true } else { false }
            let isNumber = if case .number = kind { true } else { false }
            let isLine = if case .line = kind { true } else { false }
            return ShownField(
                id: "field-\(field.key)", key: field.key, label: field.label, hint: field.hint, value: value,
                error: claimed.isEmpty ? nil : claimed.map(\.message).joined(separator: "; "), saved: saved.map { $0.isEmpty ? "(empty)" : $0 },
                isLine: isLine, isNumber: isNumber, isArea: isArea, rows: rows, isFlag: isFlag, checked: isFlag && !value.isEmpty,
                isChoice: !options.isEmpty, options: options)
        }
        problems = unclaimed.map { $0.field.isEmpty ? $0.message : "\($0.field) \($0.message)" }
    }
}

/// The sign-in page: an API key, exchanged for a session.
struct SignInPage: FramedPage {
    var frame = PageFrame(title: "Sign in", description: "Sign in to edit the compendium.")
    let next: String
    let error: String?
}
