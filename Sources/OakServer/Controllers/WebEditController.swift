import Foundation
import HTTPTypes
import Hummingbird
import OakModels
import OakStore
import OakWeb

/// The pages' edit forms, for a signed-in browser (`WebSessionController`): species, a source's description of a
/// species, the owner's notes on a species, sources and taxa, each at `/edit/…` (a record) or `/new/…` (a record to
/// add). A submitted form becomes the JSON body the API takes (`EditForm.requestBody`), decoded and validated by
/// the API's own code, so its errors are the API's, shown beside their fields. Every form carries the session's
/// form token (CSRF) and the version of the record it was opened on: a save over a record changed since is
/// refused with the conflict page (409), which keeps the text typed and shows what is saved now.
struct WebEditController {
    let store: any CompendiumStore
    let pages: WebPages
    let viewers: WebViewers
    let web: WebController

    /// What a form edits: the form, the ability it needs, its wording and how to open its record.
    struct Target {
        let form: EditForm
        let ability: Ability
        let heading: String
        let submitLabel: String
        let cancelHref: String
        /// The record as the form works on it: the one the target read when that is all it needs (species, sources,
        /// taxa), else read here (a description; the notes, read again after the store refused a stale version).
        let open: @Sendable () async throws -> Opened
    }

    /// A record as a form opened it: its fields' texts (nil for a form that adds one) and how to save a submission
    /// over it (the body as the API takes it), answering the path of the page to show after.
    struct Opened {
        let values: [String: String]?
        let save: @Sendable (JSONValue) async throws -> String
    }

    static let crossSiteMessage = "This form was sent from another site, so it was not accepted."
    static let outOfDateMessage =
        "This form was opened before you last signed in or out (or came from elsewhere), so it was not saved. Your text is kept below: check it and save again."

    /// Paths whose POST takes a form (`application/x-www-form-urlencoded`) rather than JSON: signing in and out,
    /// and the folders of the forms' routes (`APIRoute.forms`).
    static func takesForms(_ path: String) -> Bool {
        path == APIRoute.signIn.path || path == APIRoute.signOut.path || formFolders.contains { path.hasPrefix($0) }
    }

    private static let formFolders = APIRoute.folders(of: APIRoute.forms)

    static func isForm(_ contentType: String) -> Bool {
        contentType.split(separator: ";").first?.trimmingWhitespace.lowercased() == "application/x-www-form-urlencoded"
    }

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        func form(
            _ shown: APIRoute, _ submitted: APIRoute, _ target: @escaping @Sendable (Request, OakRequestContext) async throws -> Target
        ) {
            group.on(shown) { request, context in try await show(request, context, target) }
            group.on(submitted) { request, context in try await submit(request, context, target) }
        }
        form(.speciesForm, .submitSpeciesForm, speciesTarget)
        form(.newSpeciesForm, .submitNewSpeciesForm, newSpeciesTarget)
        form(.descriptionForm, .submitDescriptionForm, descriptionTarget)
        form(.newDescriptionForm, .submitNewDescriptionForm, newDescriptionTarget)
        form(.notesForm, .submitNotesForm, notesTarget)
        form(.sourceForm, .submitSourceForm, sourceTarget)
        form(.newSourceForm, .submitNewSourceForm, newSourceTarget)
        form(.taxonForm, .submitTaxonForm, taxonTarget)
        form(.newTaxonForm, .submitNewTaxonForm, newTaxonTarget)
    }

    // MARK: What each form edits

    @Sendable func speciesTarget(_ request: Request, context: OakRequestContext) async throws -> Target {
        let species = try await store.species(named: try context.pathParameter("name"))
        let form = EditForm.species(creating: false)
        return Target(
            form: form, ability: .speciesWrite, heading: "Edit \(Species.fullName(species.scientificName))", submitLabel: "Save",
            cancelHref: SitePath.species(species.scientificName)
        ) {
            Opened(values: form.values(of: species)) { body in
                let saved = try await store.updateSpecies(named: species.scientificName, with: try Self.decode(SpeciesPatch.self, body))
                return SitePath.species(saved.scientificName)
            }
        }
    }

    @Sendable func newSpeciesTarget(_ request: Request, context: OakRequestContext) async throws -> Target {
        Target(form: .species(creating: true), ability: .speciesWrite, heading: "Add a species", submitLabel: "Add", cancelHref: "/") {
            Opened(values: nil) { body in
                SitePath.species(try await store.createSpecies(try Self.decode(SpeciesPatch.self, body)).scientificName)
            }
        }
    }

    @Sendable func descriptionTarget(_ request: Request, context: OakRequestContext) async throws -> Target {
        let species = try await store.species(named: try context.pathParameter("name"))
        let source = try await store.source(id: try context.pathInt("id"))
        let form = EditForm.description(creatingFrom: nil)
        let name = species.scientificName
        return Target(
            form: form, ability: .speciesWrite, heading: "\(source.name) on \(Species.fullName(name))", submitLabel: "Save",
            cancelHref: SitePath.species(name)
        ) {
            let current = try await store.speciesSource(of: name, sourceId: source.id)
            return Opened(values: form.values(of: current)) { body in
                _ = try await store.updateSpeciesSource(of: name, sourceId: source.id, with: try Self.decode(SpeciesSourcePatch.self, body))
                return SitePath.species(name)
            }
        }
    }

    @Sendable func newDescriptionTarget(_ request: Request, context: OakRequestContext) async throws -> Target {
        let name = try await store.species(named: try context.pathParameter("name")).scientificName
        // The owner's own notes are added with the notes form.
        let sources = try await store.listSources().filter { $0.id != Source.personalObservationID }
        return Target(
            form: .description(creatingFrom: sources), ability: .speciesWrite, heading: "Add a description of \(Species.fullName(name))",
            submitLabel: "Add", cancelHref: SitePath.species(name)
        ) {
            Opened(values: nil) { body in
                _ = try await store.createSpeciesSource(of: name, with: try Self.decode(SpeciesSourcePatch.self, body))
                return SitePath.species(name)
            }
        }
    }

    @Sendable func notesTarget(_ request: Request, context: OakRequestContext) async throws -> Target {
        let name = try await store.species(named: try context.pathParameter("name")).scientificName
        let form = EditForm.note
        return Target(
            form: form, ability: .notesWrite, heading: "My notes on \(Species.fullName(name))", submitLabel: "Save", cancelHref: SitePath.species(name)
        ) {
            let note = try await store.notes(species: name, sourceId: Source.personalObservationID).first
            return Opened(values: note.map { form.values(of: $0.fields) } ?? form.values(of: NoteFields())) { body in
                let input = try Self.decode(NoteInput.self, .object(["scientificName": .string(name), "fields": body]))
                if let note {
                    // The notes store checks the version itself, so a note saved in between is a conflict even now.
                    _ = try await store.updateNote(id: note.id, with: input, expectedVersion: note.version)
                } else {
                    _ = try await store.createNote(input)
                }
                return SitePath.species(name)
            }
        }
    }

    @Sendable func sourceTarget(_ request: Request, context: OakRequestContext) async throws -> Target {
        let source = try await store.source(id: try context.pathInt("id"))
        let form = EditForm.source
        return Target(form: form, ability: .sourcesWrite, heading: "Edit \(source.name)", submitLabel: "Save", cancelHref: SitePath.source(source.id)) {
            Opened(values: form.values(of: source)) { body in
                SitePath.source(try await store.updateSource(id: source.id, with: try Self.decode(SourcePatch.self, body)).id)
            }
        }
    }

    @Sendable func newSourceTarget(_ request: Request, context: OakRequestContext) async throws -> Target {
        Target(form: .source, ability: .sourcesWrite, heading: "Add a source", submitLabel: "Add", cancelHref: APIRoute.sourcesPage.path) {
            Opened(values: nil) { body in SitePath.source(try await store.createSource(try Self.decode(SourcePatch.self, body)).id) }
        }
    }

    @Sendable func taxonTarget(_ request: Request, context: OakRequestContext) async throws -> Target {
        let taxon = try await store.taxon(level: try TaxonLevel.parse(try context.pathParameter("level")), name: try context.pathParameter("name"))
        let form = EditForm.taxon(creating: false)
        return Target(
            form: form, ability: .taxaWrite, heading: "Edit \(taxon.level.rawValue) \(taxon.name)", submitLabel: "Save",
            cancelHref: SitePath.taxon(taxon.level, taxon.name)
        ) {
            Opened(values: form.values(of: taxon)) { body in
                let saved = try await store.updateTaxon(level: taxon.level, name: taxon.name, with: try Self.decode(TaxonPatch.self, body))
                return SitePath.taxon(saved.level, saved.name)
            }
        }
    }

    @Sendable func newTaxonTarget(_ request: Request, context: OakRequestContext) async throws -> Target {
        Target(form: .taxon(creating: true), ability: .taxaWrite, heading: "Add a taxon", submitLabel: "Add", cancelHref: "/taxonomy") {
            Opened(values: nil) { body in
                let saved = try await store.createTaxon(try Self.decode(TaxonPatch.self, body))
                return SitePath.taxon(saved.level, saved.name)
            }
        }
    }

    // MARK: Showing and submitting a form

    /// A form opened on its record; a browser that is not signed in is sent to sign in first.
    func show(
        _ request: Request, _ context: OakRequestContext, _ resolve: (Request, OakRequestContext) async throws -> Target
    ) async throws -> Response {
        let signedIn = try await viewers.signedIn(request)
        let visit = viewers.pageRequest(request, signedIn: signedIn)
        do {
            // The address is read first: a record that is not there is a 404 page whoever asks (pages are public).
            let target = try await resolve(request, context)
            guard let signedIn else {
                return Response(status: .seeOther, headers: [.location: "/sign-in?next=" + Self.queryValue(request.uri.description)])
            }
            try Self.check(signedIn, may: target.ability)
            let values = try await target.open().values ?? [:]
            return page(target, FormState(values: values, version: target.form.version(of: values)), for: visit, request)
        } catch let error as OakError where error.code.httpStatus < 500 {
            return web.problem(error, for: visit)
        }
    }

    /// A submitted form: saved (then the record's page, 303), or the form again with the API's errors (400…), or
    /// the conflict page (409) when the record changed since the form was opened.
    func submit(
        _ request: Request, _ context: OakRequestContext, _ resolve: (Request, OakRequestContext) async throws -> Target
    ) async throws -> Response {
        let signedOut = PageRequest(path: request.uri.path, viewer: nil)
        guard Self.isSameOrigin(request) else {
            return WebController.html(pages.problem(title: "Not allowed", message: Self.crossSiteMessage, for: signedOut), status: .forbidden)
        }
        let target: Target
        do {
            target = try await resolve(request, context)
        } catch let error as OakError where error.code.httpStatus < 500 {
            return web.problem(error, for: signedOut)
        }
        let submitted = try await Self.formValues(request)
        let kept = FormState(values: submitted, version: submitted["version"] ?? "")
        // Nothing typed is lost: a form that cannot be saved now comes back with its text.
        guard let signedIn = try await viewers.signedIn(request) else {
            var state = kept
            state.signedOut = true
            return page(target, state, status: .unauthorized, for: signedOut, request)
        }
        let visit = viewers.pageRequest(request, signedIn: signedIn)
        guard viewers.sessions.acceptsFormToken(submitted["csrf"] ?? "", for: signedIn.session) else {
            // The form came from another session (opened before a sign-in) or elsewhere: shown again with this
            // session's token, for the owner to check and save.
            var state = kept
            state.errors = [FieldError(field: "", message: Self.outOfDateMessage)]
            return page(target, state, status: .forbidden, for: visit, request)
        }
        do {
            try Self.check(signedIn, may: target.ability)
            var opened = try await target.open()
            if let saved = opened.values, target.form.version(of: saved) != submitted["version"] {
                return conflict(target, submitted, saved: saved, for: visit, request)
            }
            do {
                let path = try await opened.save(target.form.requestBody(submitted))
                return Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
            } catch let error as OakError where error.code == .preconditionFailed {
                // The notes store checks the version itself: a note saved between the check above and the save.
                opened = try await target.open()
                return conflict(target, submitted, saved: opened.values ?? [:], for: visit, request)
            } catch let error as OakError where error.code.httpStatus < 500 && error.code != .notFound {
                let errors = error.fieldErrors.isEmpty ? [FieldError(field: "", message: error.message)] : error.fieldErrors
                let state = FormState(values: submitted, version: submitted["version"] ?? "", errors: errors)
                return page(target, state, status: HTTPResponse.Status(code: error.code.httpStatus), for: visit, request)
            }
        } catch let error as OakError where error.code.httpStatus < 500 {
            return web.problem(error, for: visit)
        }
    }

    private func conflict(_ target: Target, _ submitted: [String: String], saved: [String: String], for visit: PageRequest, _ request: Request) -> Response {
        let state = FormState(values: submitted, version: target.form.version(of: saved), saved: saved)
        return page(target, state, status: .conflict, for: visit, request)
    }

    private func page(_ target: Target, _ state: FormState, status: HTTPResponse.Status = .ok, for visit: PageRequest, _ request: Request) -> Response {
        var response = WebController.html(
            pages.form(
                target.form, heading: target.heading, action: request.uri.path, cancelHref: target.cancelHref, submitLabel: target.submitLabel,
                state: state, for: visit), status: status)
        // A form holds the session's form token: never kept by a cache.
        response.headers[.cacheControl] = "no-store"
        return response
    }

    private static func check(_ signedIn: WebViewers.SignedIn, may ability: Ability) throws {
        guard signedIn.allows(ability) else {
            throw OakError(.forbidden, "Your sign-in lacks the '\(ability.rawValue)' ability this form needs.")
        }
    }

    /// The page for a form whose token is not the session's: opened before a sign-out or sign-in, or made elsewhere.
    static func expiredForm(_ pages: WebPages, _ viewers: WebViewers, _ request: Request) -> Response {
        let message = "This form is out of date (it was opened before you last signed in or out) or did not come from this site. Open it again."
        return WebController.html(
            pages.problem(title: "Form out of date", message: message, for: PageRequest(path: request.uri.path, viewer: nil)), status: .forbidden)
    }

    /// Whether a form was sent from this site's own pages: a browser says so (`Sec-Fetch-Site`), or, when it does
    /// not (plain HTTP to a host other than the loopback), its `Origin` names the host asked.
    static func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!] { return site == "same-origin" || site == "none" }
        guard let origin = request.headers[.origin] else { return true }
        guard let url = URL(string: origin), let host = url.host, let asked = request.headers[HTTPField.Name("X-Forwarded-Host")!] ?? request.head.authority
        else { return false }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        return authority.lowercased() == asked.lowercased()
    }

    /// A form's fields (`application/x-www-form-urlencoded`); a body that is not one is a 400.
    static func formValues(_ request: Request) async throws -> [String: String] {
        var request = request
        let body = String(buffer: try await request.collectBody(upTo: .max))
        do {
            return try URLEncodedFormDecoder().decode([String: String].self, from: body)
        } catch {
            throw OakError.invalid("body", "must be a form's fields (application/x-www-form-urlencoded)")
        }
    }

    /// The API's request body type from a form's JSON, decoded as the API decodes a body.
    private static func decode<T: Decodable>(_ type: T.Type, _ body: JSONValue) throws -> T {
        try Request.decodeJSON(type, from: try JSONEncoder().encode(body))
    }

    private static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"
    }
}
