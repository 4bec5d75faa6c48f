import Foundation
import Mustache
import OakModels

/// The pages `oak serve` answers browsers with, rendered from the models by the mustache templates in
/// `Resources/templates`. A template escapes every value it writes (`{{value}}`); the only markup written
/// unescaped (`{{{html}}}`) is Markdown rendered by `SafeMarkdown`. Links to other sites go through
/// `WebText.safeURL`. Each page is a plain value (`Pages.swift`) that the templates read.
public struct WebPages: Sendable {
    private let library: MustacheLibrary

    /// The stylesheet every page links to (`/assets/oak.css`).
    public let stylesheet: Data
    /// The one script, search as you type (`/assets/oak.js`); every page works without it.
    public let script: Data
    /// The site's icon, an acorn (`/assets/oak.svg`).
    public let icon: Data

    /// Loads the templates and the stylesheet from the module's resources.
    public init() throws {
        guard let templates = Bundle.module.url(forResource: "templates", withExtension: nil),
            let stylesheet = Bundle.module.url(forResource: "assets/oak", withExtension: "css"),
            let script = Bundle.module.url(forResource: "assets/oak", withExtension: "js"),
            let icon = Bundle.module.url(forResource: "assets/oak", withExtension: "svg")
        else { throw CocoaError(.fileNoSuchFile) }
        var library = MustacheLibrary()
        for file in try FileManager.default.contentsOfDirectory(at: templates, includingPropertiesForKeys: nil)
        where file.pathExtension == "mustache" {
            try library.register(String(contentsOf: file, encoding: .utf8), named: file.deletingPathExtension().lastPathComponent)
        }
        self.library = library
        self.stylesheet = try Data(contentsOf: stylesheet)
        self.script = try Data(contentsOf: script)
        self.icon = try Data(contentsOf: icon)
    }

    /// The landing page: search, and what the compendium holds.
    public func home(_ stats: CatalogStats, for request: PageRequest) -> String {
        render(HomePage(stats), "home", request)
    }

    /// A search's results, grouped as the API groups them.
    public func search(_ result: CatalogSearchResult, for request: PageRequest) -> String {
        render(SearchPage(result), "search", request)
    }

    /// A species: taxonomy, relatives, and every source's description side by side (the owner's own notes are
    /// the personal-observation source's).
    /// `since` is the change-log position the page shows the data at: its live updates start there.
    public func species(_ full: SpeciesFull, sources: [Source], since: Int64, for request: PageRequest) -> String {
        render(SpeciesPage(full, sources: sources, since: since), "species", request)
    }

    /// The taxonomy as a tree, with the species each taxon holds.
    public func taxonomy(_ taxa: [Taxon], for request: PageRequest) -> String {
        render(TaxonomyPage(taxa), "taxonomy", request)
    }

    /// A taxon and its species.
    public func taxon(_ taxon: Taxon, species: [Species], for request: PageRequest) -> String {
        render(TaxonPage(taxon, species: species), "taxon", request)
    }

    /// Every source.
    public func sources(_ sources: [Source], for request: PageRequest) -> String {
        render(SourcesPage(sources), "sources", request)
    }

    /// A source and the species it describes.
    public func source(_ source: Source, species: [Species], for request: PageRequest) -> String {
        render(SourcePage(source, species: species), "source", request)
    }

    /// A page for what is not here (404), or a request the page cannot answer.
    public func problem(title: String, message: String, for request: PageRequest) -> String {
        render(ProblemPage(title: title, message: message), "problem", request)
    }

    /// An edit form (`EditForm`) in a state: a record opened for editing, or a submission refused.
    public func form(
        _ form: EditForm, heading: String, action: String, cancelHref: String, submitLabel: String, state: FormState, for request: PageRequest
    ) -> String {
        render(FormPage(form, heading: heading, action: action, cancelHref: cancelHref, submitLabel: submitLabel, state: state), "form", request)
    }

    /// The sign-in form; `next` is the page to go back to, `error` why the last try failed.
    public func signIn(next: String, error: String?, for request: PageRequest) -> String {
        render(SignInPage(next: next, error: error), "sign-in", request)
    }

    private func render(_ page: some FramedPage, _ template: String, _ request: PageRequest) -> String {
        var page = page
        page.frame.show(to: request)
        return library.render(page, withTemplate: template) ?? ""
    }
}
