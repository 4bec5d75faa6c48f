import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OakModels
import OakServer
import Testing

/// Editing through the pages (`WebSessionController`, `WebEditController`) over a real socket, as a browser does
/// it: sign in with a key for a session cookie, open a form, post it back with its form token and version. The
/// browser itself runs the same steps in `scripts/browser-tests`.
@Suite("Web editing")
struct WebEditingTests {
    @Test("signing in with the owner key gives an HttpOnly, SameSite=Strict session cookie that does not hold the key; a wrong key is a 401 page and no cookie")
    func signInSetsSessionCookie() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let wrong = try await client.postForm("/sign-in", ["key": "not-the-key", "next": "/species/alba"])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.setCookie] == nil)
            #expect(String(buffer: wrong.body).contains("That key is not valid."))
            let empty = try await client.postForm("/sign-in", ["key": ""])
            #expect(empty.status == .badRequest)

            let signedIn = try await client.postForm("/sign-in", ["key": TestEnvironment.ownerKey, "next": "/species/alba"])
            #expect(signedIn.status == .seeOther)
            #expect(signedIn.headers[.location] == "/species/alba")
            let cookie = try #require(signedIn.headers[.setCookie])
            #expect(cookie.hasPrefix("oak_session="))
            #expect(cookie.contains("; HttpOnly"))
            #expect(cookie.contains("; SameSite=Strict"))
            #expect(cookie.contains("; Max-Age=43200"))
            #expect(!cookie.contains("Secure"), "plain HTTP on the loopback: a Secure cookie would never come back")
            #expect(!cookie.contains(TestEnvironment.ownerKey))

            // Only a path of this server is gone back to.
            for next in ["https://evil.example/", "//evil.example/", "/\\evil.example"] {
                let elsewhere = try await client.postForm("/sign-in", ["key": TestEnvironment.ownerKey, "next": next])
                #expect(elsewhere.headers[.location] == "/", "\(next)")
            }
            let page = try await client.page("/species/alba", cookie: try WebBrowser.sessionCookie(signedIn))
            #expect(page.html.contains("Signed in as owner"))
            #expect(page.html.contains("<a href=\"/edit/species/alba\">Edit this species</a>"))
        }
    }

    @Test("behind a trusted proxy that says the request came over TLS, the session cookie is Secure")
    func secureBehindTLS() async throws {
        let env = try await TestEnvironment()
        var configuration = env.configuration
        configuration.trustProxy = true
        try await env.test(.live, configuration: configuration) { client in
            let overTLS = try await client.postForm(
                "/sign-in", ["key": TestEnvironment.ownerKey], headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"])
            #expect(try #require(overTLS.headers[.setCookie]).hasSuffix("; HttpOnly; SameSite=Strict; Secure"))
            let plain = try await client.postForm("/sign-in", ["key": TestEnvironment.ownerKey])
            #expect(plain.headers[.setCookie]?.contains("Secure") == false)
        }
        // A proxy that is not trusted cannot ask for it.
        try await env.test(.live) { client in
            let claimed = try await client.postForm(
                "/sign-in", ["key": TestEnvironment.ownerKey], headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"])
            #expect(claimed.headers[.setCookie]?.contains("Secure") == false)
        }
    }

    @Test("signed out, pages have no edit links, a form's page sends the browser to sign in, and a submitted form changes nothing")
    func signedOutReadOnly() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let page = try await client.page("/species/alba", cookie: nil)
            #expect(!page.html.contains("/edit/"))
            #expect(page.html.contains("<a href=\"/sign-in?next=%2Fspecies%2Falba\">Sign in to edit</a>"))
            let form = try await client.send(.get, "/edit/species/alba", key: nil, headers: WebBrowser.headers)
            #expect(form.status == .seeOther)
            #expect(form.headers[.location] == "/sign-in?next=%2Fedit%2Fspecies%2Falba")

            let before = try await client.send(.get, "/api/v1/species/alba", key: nil)
            let submitted = try await client.postForm("/edit/species/alba", ["author": "Nobody", "csrf": "x", "version": "y"])
            #expect(submitted.status == .unauthorized)
            #expect(String(buffer: submitted.body).contains("Your sign-in has ended, so this was not saved."))
            // The owner key itself is not a session: forms are for browsers.
            let withKey = try await client.postForm("/edit/species/alba", ["author": "Nobody"], key: TestEnvironment.ownerKey)
            #expect(withKey.status == .unauthorized)
            let after = try await client.send(.get, "/api/v1/species/alba", key: nil)
            #expect(after.body == before.body)
        }
    }

    @Test("an edited species is what the API returns and what its page shows at once, though the page was cached before")
    func editSpecies() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            // Asked twice, so the shared cache holds the page as it was.
            for _ in 0..<2 { _ = try await client.page("/species/alba", cookie: nil) }
            let browser = try await WebBrowser.signIn(client)
            let form = try await browser.open("/edit/species/alba")
            #expect(form.value("author") == "L.")
            var fields = form.fields
            fields["author"] = "L. 1753"
            fields["synonyms"] = "Quercus candida\nQuercus alba var. repanda"
            fields["external_links"] = "Tropicos | https://tropicos.example/alba\nhttps://oaks.example/alba"
            fields["is_hybrid"] = nil
            let saved = try await browser.submit("/edit/species/alba", fields)
            #expect(saved.status == .seeOther)
            #expect(saved.headers[.location] == "/species/alba")

            let record = try await client.send(.get, "/api/v1/species/alba", key: nil).object()
            #expect(record["author"] as? String == "L. 1753")
            #expect(record["synonyms"] as? [String] == ["Quercus candida", "Quercus alba var. repanda"])
            #expect(record["is_hybrid"] as? Bool == false)
            let links = try #require(record["external_links"] as? [[String: Any]])
            #expect(links.map { $0["url"] as? String } == ["https://tropicos.example/alba", "https://oaks.example/alba"])
            #expect(links.first?["name"] as? String == "Tropicos")
            // The section and subgenus the form showed and sent back are unchanged.
            #expect(record["section"] as? String == "Quercus")
            #expect(record["subgenus"] as? String == "Quercus")

            let page = try await client.page("/species/alba", cookie: nil)
            #expect(page.html.contains("<span class=\"author\">L. 1753</span>"))
            #expect(page.html.contains("Quercus candida, Quercus alba var. repanda"))
        }
    }

    @Test("a form's errors are the API's, shown beside their field, with the typed text kept, and nothing is saved")
    func validationErrors() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let browser = try await WebBrowser.signIn(client)
            let before = try await client.send(.get, "/api/v1/species/alba", key: nil).body
            var fields = try await browser.open("/edit/species/alba").fields
            fields["subgenus"] = "Nonesuch"
            fields["author"] = "Kept <b>text</b>"
            let refused = try await browser.submit("/edit/species/alba", fields)
            #expect(refused.status == .badRequest)
            let html = String(buffer: refused.body)
            let api = try await client.send(.put, "/api/v1/species/alba", json: #"{"subgenus": "Nonesuch"}"#)
            let message = try #require((api.object()["error"] as? [String: Any])?["details"] as? [String: Any])
            let apiMessage = try #require((message["errors"] as? [[String: Any]])?.first?["message"] as? String)
            #expect(html.contains("<p class=\"error\" id=\"field-subgenus-error\">\(apiMessage)</p>"))
            #expect(html.contains("aria-invalid=\"true\" aria-errormessage=\"field-subgenus-error\""))
            #expect(html.contains("value=\"Kept &lt;b&gt;text&lt;/b&gt;\""))
            #expect(try await client.send(.get, "/api/v1/species/alba", key: nil).body == before)

            // A year that is not a number, on a new source: the decoder's message, on the year.
            var source = try await browser.open("/new/source").fields
            source["name"] = "A Book"
            source["source_type"] = "Book"
            source["year"] = "nineteen"
            let sourceRefused = try await browser.submit("/new/source", source)
            #expect(sourceRefused.status == .badRequest)
            #expect(String(buffer: sourceRefused.body).contains("id=\"field-year-error\""))
            #expect(try await env.count("SELECT COUNT(*) FROM sources WHERE name = 'A Book'") == 0)
            // A NUL character is refused as the API refuses it.
            source["year"] = "1999"
            source["notes"] = "cut\u{0}short"
            let nul = try await browser.submit("/new/source", source)
            #expect(nul.status == .badRequest)
            #expect(String(buffer: nul.body).contains("must not contain NUL characters"))
            #expect(try await env.count("SELECT COUNT(*) FROM sources WHERE name = 'A Book'") == 0)
        }
    }

    @Test(
        "two tabs: a save over a record the other tab changed is a 409 conflict page that keeps the typed text and shows what is saved; saving it again overwrites"
    )
    func conflictBetweenTabs() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let browser = try await WebBrowser.signIn(client)
            let first = try await browser.open("/edit/species/alba")
            let second = try await browser.open("/edit/species/alba")

            var mine = first.fields
            mine["author"] = "First tab"
            #expect(try await browser.submit("/edit/species/alba", mine).status == .seeOther)

            var theirs = second.fields
            theirs["author"] = "Second tab"
            theirs["conservation_status"] = "LC"
            let conflict = try await browser.submit("/edit/species/alba", theirs)
            #expect(conflict.status == .conflict)
            let page = WebForm(html: String(buffer: conflict.body))
            #expect(page.html.contains("Changed since you opened this form"))
            #expect(page.value("author") == "Second tab")
            #expect(page.value("conservation_status") == "LC")
            #expect(page.html.contains("Saved now: <span class=\"saved-value\">First tab</span>"))
            #expect(try await client.send(.get, "/api/v1/species/alba", key: nil).object()["author"] as? String == "First tab")

            // Saving the conflict page's form is a deliberate overwrite.
            #expect(try await browser.submit("/edit/species/alba", page.fields).status == .seeOther)
            let record = try await client.send(.get, "/api/v1/species/alba", key: nil).object()
            #expect(record["author"] as? String == "Second tab")
            #expect(record["conservation_status"] as? String == "LC")

            // A change through the API (the app, the CLI) between opening and saving is caught the same way.
            let opened = try await browser.open("/edit/species/alba")
            try await client.send(.put, "/api/v1/species/alba", json: #"{"conservation_status": "VU"}"#)
            var late = opened.fields
            late["author"] = "Late"
            #expect(try await browser.submit("/edit/species/alba", late).status == .conflict)
            #expect(try await client.send(.get, "/api/v1/species/alba", key: nil).object()["author"] as? String == "Second tab")
        }
    }

    @Test("a form sent after the sign-in ended, or opened before the last sign-in, keeps its text: sign in again, save, and it is saved")
    func nothingTypedIsLost() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let first = try await WebBrowser.signIn(client)
            var fields = try await first.open("/edit/species/alba").fields
            fields["author"] = "Typed before the sign-in ended"

            // The browser signed out (or the session expired) while the form was open.
            let signedOut = WebBrowser(client: client, cookie: "oak_session=expired")
            let refused = try await signedOut.submit("/edit/species/alba", fields)
            #expect(refused.status == .unauthorized)
            let kept = WebForm(html: String(buffer: refused.body))
            #expect(kept.html.contains("Signed out: not saved"))
            #expect(kept.html.contains("<a href=\"/sign-in\" target=\"_blank\" rel=\"noopener\">Sign in in a new tab</a>"))
            #expect(kept.value("author") == "Typed before the sign-in ended")
            #expect(kept.value("csrf") == "")

            // Signed in again (in another tab), the kept form is sent: shown once more with the new session's token.
            let again = try await WebBrowser.signIn(client)
            let outOfDate = try await again.submit("/edit/species/alba", kept.fields)
            #expect(outOfDate.status == .forbidden)
            let checked = WebForm(html: String(buffer: outOfDate.body))
            #expect(checked.html.contains("so it was not saved. Your text is kept below: check it and save again."))
            #expect(checked.value("author") == "Typed before the sign-in ended")
            #expect(try await client.send(.get, "/api/v1/species/alba", key: nil).object()["author"] as? String == "L.")

            let saved = try await again.submit("/edit/species/alba", checked.fields)
            #expect(saved.status == .seeOther)
            #expect(try await client.send(.get, "/api/v1/species/alba", key: nil).object()["author"] as? String == "Typed before the sign-in ended")
        }
    }

    @Test("a form without the session's token, or sent by another site, is refused with 403 and changes nothing")
    func formTokenAndOrigin() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let browser = try await WebBrowser.signIn(client)
            let before = try await client.send(.get, "/api/v1/species/alba", key: nil).body
            var fields = try await browser.open("/edit/species/alba").fields
            fields["author"] = "Forged"

            var forged = fields
            forged["csrf"] = String(repeating: "0", count: 64)
            let wrongToken = try await browser.submit("/edit/species/alba", forged)
            #expect(wrongToken.status == .forbidden)
            #expect(String(buffer: wrongToken.body).contains("so it was not saved"))
            forged["csrf"] = nil
            #expect(try await browser.submit("/edit/species/alba", forged).status == .forbidden)
            // Another session's token is not this one's.
            let other = try await WebBrowser.signIn(client)
            forged["csrf"] = try await other.open("/edit/species/alba").value("csrf")
            #expect(try await browser.submit("/edit/species/alba", forged).status == .forbidden)

            let crossSite = try await browser.submit("/edit/species/alba", fields, headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"])
            #expect(crossSite.status == .forbidden)
            let otherOrigin = try await browser.submit("/edit/species/alba", fields, headers: [.origin: "http://evil.example"])
            #expect(otherOrigin.status == .forbidden)
            let sandboxed = try await browser.submit("/edit/species/alba", fields, headers: [.origin: "null"])
            #expect(sandboxed.status == .forbidden)
            let signInElsewhere = try await client.postForm(
                "/sign-in", ["key": TestEnvironment.ownerKey], headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"])
            #expect(signInElsewhere.status == .forbidden)
            #expect(signInElsewhere.headers[.setCookie] == nil)
            #expect(try await client.send(.get, "/api/v1/species/alba", key: nil).body == before)

            // A tampered cookie is no session.
            var tampered = browser
            tampered.cookie = String(browser.cookie.dropLast()) + (browser.cookie.hasSuffix("0") ? "1" : "0")
            let page = try await client.page("/species/alba", cookie: tampered.cookie)
            #expect(!page.html.contains("Signed in"))
        }
    }

    @Test("each kind of record has its form: a new species, a source's description, the owner's notes, a source and a taxon, added and edited")
    func everyRecordHasAForm() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let browser = try await WebBrowser.signIn(client)

            var species = try await browser.open("/new/species").fields
            species["scientific_name"] = "webbiana"
            species["subgenus"] = "Quercus"
            species["section"] = "Lobatae"
            let added = try await browser.submit("/new/species", species)
            #expect(added.status == .seeOther)
            #expect(added.headers[.location] == "/species/webbiana")

            var source = try await browser.open("/new/source").fields
            source["name"] = "Field Guide to Web Oaks"
            source["source_type"] = "Book"
            source["year"] = "2024"
            let sourceAdded = try await browser.submit("/new/source", source)
            #expect(sourceAdded.status == .seeOther)
            let sourcePath = try #require(sourceAdded.headers[.location])
            let sourceID = try #require(Int(sourcePath.dropFirst("/sources/".count)))
            var sourceEdit = try await browser.open("/edit/sources/\(sourceID)").fields
            #expect(sourceEdit["year"] == "2024")
            sourceEdit["license"] = "CC BY 4.0"
            #expect(try await browser.submit("/edit/sources/\(sourceID)", sourceEdit).status == .seeOther)
            #expect(try await client.send(.get, "/api/v1/sources/\(sourceID)", key: nil).object()["license"] as? String == "CC BY 4.0")

            let describe = try await browser.open("/new/species/webbiana/description")
            #expect(describe.html.contains("<option value=\"\(sourceID)\">Field Guide to Web Oaks</option>"))
            var description = describe.fields
            description["source_id"] = String(sourceID)
            description["leaves"] = "Deeply *lobed*."
            description["local_names"] = "web oak\nnet oak"
            #expect(try await browser.submit("/new/species/webbiana/description", description).status == .seeOther)
            var descriptionEdit = try await browser.open("/edit/species/webbiana/sources/\(sourceID)").fields
            #expect(descriptionEdit["local_names"] == "web oak\nnet oak")
            descriptionEdit["bark"] = "Grey, furrowed."
            #expect(try await browser.submit("/edit/species/webbiana/sources/\(sourceID)", descriptionEdit).status == .seeOther)
            let row = try await client.send(.get, "/api/v1/species/webbiana/sources/\(sourceID)", key: nil).object()
            #expect(row["leaves"] as? String == "Deeply *lobed*.")
            #expect(row["bark"] as? String == "Grey, furrowed.")
            #expect(row["local_names"] as? [String] == ["web oak", "net oak"])

            // The owner's notes: the first save creates the note, the next updates it (the app syncs both).
            var notes = try await browser.open("/edit/species/webbiana/notes").fields
            notes["leaf"] = "Seen at the pond."
            #expect(try await browser.submit("/edit/species/webbiana/notes", notes).status == .seeOther)
            notes = try await browser.open("/edit/species/webbiana/notes").fields
            #expect(notes["leaf"] == "Seen at the pond.")
            notes["acorn"] = "Small, striped."
            #expect(try await browser.submit("/edit/species/webbiana/notes", notes).status == .seeOther)
            let saved = try await client.send(.get, "/api/v1/notes?species=webbiana", key: nil)
            let list = try #require(try JSONSerialization.jsonObject(with: Data(buffer: saved.body)) as? [[String: Any]])
            #expect(list.count == 1)
            let noteFields = try #require(list.first?["fields"] as? [String: String])
            #expect(noteFields == ["leaf": "Seen at the pond.", "acorn": "Small, striped."])

            var taxon = try await browser.open("/new/taxon").fields
            taxon["name"] = "Webbae"
            taxon["level"] = "subsection"
            taxon["parent"] = "Lobatae"
            let taxonAdded = try await browser.submit("/new/taxon", taxon)
            #expect(taxonAdded.headers[.location] == "/taxa/subsection/Webbae")
            var taxonEdit = try await browser.open("/edit/taxa/subsection/Webbae").fields
            taxonEdit["notes"] = "A **web** of oaks."
            #expect(try await browser.submit("/edit/taxa/subsection/Webbae", taxonEdit).status == .seeOther)
            let taxonPage = try await client.page("/taxa/subsection/Webbae", cookie: nil)
            #expect(taxonPage.html.contains("<p>A <strong>web</strong> of oaks.</p>"))

            let page = try await client.page("/species/webbiana", cookie: browser.cookie)
            #expect(page.html.contains("<a href=\"/edit/species/webbiana/notes\">Edit my notes</a>"))
            #expect(page.html.contains("<a href=\"/edit/species/webbiana/sources/\(sourceID)\">Edit this description</a>"))
            #expect(try await client.send(.get, "/edit/species/nonesuch", key: nil, headers: browser.headers).status == .notFound)
        }
    }

    @Test("a token's session may edit only what the token may, and ends when the token is revoked")
    func tokenSession() async throws {
        let env = try await TestEnvironment()
        let (_, secret) = try await env.store.createToken(name: "field-kit", abilities: [.notesWrite])
        try await env.test(.live) { client in
            let browser = try await WebBrowser.signIn(client, key: secret)
            let page = try await client.page("/species/alba", cookie: browser.cookie)
            #expect(page.html.contains("Signed in as field-kit"))
            #expect(page.html.contains("Write my notes"))
            #expect(!page.html.contains("Edit this species"))
            #expect(try await client.send(.get, "/edit/species/alba", key: nil, headers: browser.headers).status == .forbidden)
            var notes = try await browser.open("/edit/species/alba/notes").fields
            notes["bark"] = "Scaly."
            #expect(try await browser.submit("/edit/species/alba/notes", notes).status == .seeOther)

            try await env.store.revokeToken(name: "field-kit")
            let after = try await client.page("/species/alba", cookie: browser.cookie)
            #expect(!after.html.contains("Signed in"))
            notes["bark"] = "Revoked."
            #expect(try await browser.submit("/edit/species/alba/notes", notes).status == .unauthorized)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE bark = 'Revoked.'") == 0)
        }
    }

    @Test("signing out clears the cookie, asks for the form token, and the browser is read-only again")
    func signOut() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let browser = try await WebBrowser.signIn(client)
            let token = try await browser.open("/edit/species/alba").value("csrf") ?? ""
            #expect(try await browser.submit("/sign-out", ["csrf": "wrong"]).status == .forbidden)
            let out = try await browser.submit("/sign-out", ["csrf": token])
            #expect(out.status == .seeOther)
            #expect(out.headers[.location] == "/")
            #expect(out.headers[.setCookie] == "oak_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")
            // The browser drops the cookie: its next page is read-only.
            let page = try await client.page("/species/alba", cookie: nil)
            #expect(!page.html.contains("/edit/"))
        }
    }

    @Test("a signed-in page, with its form token, is never kept in or answered from the shared cache")
    func signedInPagesNotShared() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let browser = try await WebBrowser.signIn(client)
            for _ in 0..<3 {
                let page = try await client.page("/species/alba", cookie: browser.cookie)
                #expect(page.html.contains("Signed in as owner"))
            }
            for _ in 0..<3 {
                let page = try await client.page("/species/alba", cookie: nil)
                #expect(!page.html.contains("Signed in"))
                #expect(!page.html.contains(browser.cookie))
            }
            let form = try await client.send(.get, "/edit/species/alba", key: nil, headers: browser.headers)
            #expect(form.headers[.cacheControl] == "no-store")
        }
    }
}

/// A browser's view of the pages: its session cookie, and the forms it opens and submits.
struct WebBrowser {
    static let headers: HTTPFields = [.accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]

    let client: any TestClientProtocol
    var cookie: String

    var headers: HTTPFields {
        var headers = Self.headers
        headers[.cookie] = cookie
        return headers
    }

    /// Signs in with a key (the owner's by default), as the sign-in form does.
    static func signIn(_ client: any TestClientProtocol, key: String = TestEnvironment.ownerKey) async throws -> WebBrowser {
        let response = try await client.postForm("/sign-in", ["key": key])
        #expect(response.status == .seeOther)
        return WebBrowser(client: client, cookie: try sessionCookie(response))
    }

    /// The `name=value` of the session cookie a response sets.
    static func sessionCookie(_ response: TestResponse) throws -> String {
        let header = try #require(response.headers[.setCookie])
        return String(try #require(header.split(separator: ";").first))
    }

    /// Opens a form's page.
    func open(_ path: String) async throws -> WebForm {
        let response = try await client.send(.get, path, key: nil, headers: headers)
        #expect(response.status == .ok, "\(path)")
        return WebForm(html: String(buffer: response.body))
    }

    /// Posts a form's fields with the session cookie.
    func submit(_ path: String, _ fields: [String: String], headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        for field in extra { headers[field.name] = field.value }
        return try await client.postForm(path, fields, headers: headers)
    }
}

/// A form as a page holds it: the values a browser would submit.
struct WebForm {
    let html: String

    /// Every field's value as the browser submits it: text inputs, text areas, the selected option, ticked boxes.
    var fields: [String: String] {
        var fields: [String: String] = [:]
        let inputs = html.matches(of: /<input id="[^"]*" name="([^"]+)" type="(text|checkbox)"[^>]*>/)
        for input in inputs {
            let tag = String(input.0)
            if input.2 == "checkbox" {
                if tag.contains(" checked") { fields[String(input.1)] = "on" }
            } else {
                fields[String(input.1)] = tag.firstMatch(of: /\svalue="([^"]*)"/).map { Self.unescaped(String($0.1)) } ?? ""
            }
        }
        for hidden in html.matches(of: /<input type="hidden" name="([^"]+)" value="([^"]*)">/) {
            fields[String(hidden.1)] = Self.unescaped(String(hidden.2))
        }
        for area in html.matches(of: /<textarea id="[^"]*" name="([^"]+)"[^>]*>([^<]*)<\/textarea>/) {
            fields[String(area.1)] = Self.unescaped(String(area.2))
        }
        for select in html.matches(of: /<select id="[^"]*" name="([^"]+)"[^>]*>(.*?)<\/select>/) {
            let selected = String(select.2).firstMatch(of: /<option value="([^"]*)" selected>/)
            fields[String(select.1)] = selected.map { Self.unescaped(String($0.1)) } ?? ""
        }
        return fields
    }

    func value(_ name: String) -> String? { fields[name] }

    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }
}

extension TestClientProtocol {
    /// Posts form fields (`application/x-www-form-urlencoded`, spaces as `+`), as a browser submits a form (the
    /// browser's own `Origin` and `Sec-Fetch-Site` are checked in `scripts/browser-tests`).
    func postForm(_ path: String, _ fields: [String: String], key: String? = nil, headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        if let key { headers[.authorization] = "Bearer \(key)" }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._* "))
        let body = fields.sorted { $0.key < $1.key }.map { name, value in
            func encoded(_ text: String) -> String {
                (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "").replacingOccurrences(of: " ", with: "+")
            }
            return encoded(name) + "=" + encoded(value)
        }.joined(separator: "&")
        return try await execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    /// A page as a browser asks for it, with a session cookie or none.
    func page(_ path: String, cookie: String?) async throws -> (status: HTTPResponse.Status, html: String) {
        var headers = WebBrowser.headers
        if let cookie { headers[.cookie] = cookie }
        let response = try await execute(uri: path, method: .get, headers: headers, body: nil)
        return (response.status, String(buffer: response.body))
    }
}
