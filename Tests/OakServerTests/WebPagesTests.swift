import CompressNIO
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OakModels
import OakServer
import Testing

/// The compendium's pages for browsers (`WebController`), as a browser asks for them: HTML, escaped, with their
/// security headers, from the same caches as the API. The browser itself runs them in `scripts/browser-tests`.
@Suite("Web pages")
struct WebPagesTests {
    static let policy =
        "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    static let browser: HTTPFields = [.accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]

    @Test("a browser asking for / gets the landing page; a client that does not ask for HTML gets the JSON index")
    func landingPageByAccept() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let page = try await client.send(.get, "/", key: nil, headers: Self.browser)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.vary] == "Accept")
            let html = String(buffer: page.body)
            #expect(html.contains("<title>Oak Compendium</title>"))
            #expect(html.contains("<meta name=\"description\" content=\"An oak compendium of 96 species and hybrids"))
            #expect(html.contains("<meta property=\"og:title\" content=\"Oak Compendium\">"))
            // The search form works without a script: a GET to /search.
            #expect(html.contains("<form class=\"search\" role=\"search\" action=\"/search\" method=\"get\">"))
            #expect(html.contains("<label for=\"q\">"))

            for accept in [nil, "*/*", "application/json", "text/html;q=0"] {
                var headers = HTTPFields()
                if let accept { headers[.accept] = accept }
                let json = try await client.send(.get, "/", key: nil, headers: headers)
                #expect(json.headers[.contentType] == "application/json; charset=utf-8", "Accept: \(accept ?? "none")")
                #expect(try json.object()["name"] as? String == "Oak Compendium")
                #expect(json.headers[.vary] == "Accept")
            }
        }
    }

    @Test("search results are grouped as the API groups them: species, taxa, sources; nothing found says so")
    func searchGrouped() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/sources", json: #"{"source_type": "book", "name": "Cerris in the Field"}"#)
            let page = try await client.send(.get, "/search?q=cerris", key: nil, headers: Self.browser)
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains("<h1>Search: cerris</h1>"))
            #expect(html.contains("<h2 id=\"found-species\">Species</h2>"))
            #expect(html.contains("<a href=\"/species/cerris\"><i>Quercus cerris</i></a>"))
            #expect(html.contains("<h2 id=\"found-taxa\">Taxa</h2>"))
            #expect(html.contains("<a href=\"/taxa/subgenus/Cerris\">Cerris</a>"))
            #expect(html.contains("<h2 id=\"found-sources\">Sources</h2>"))
            #expect(html.contains(">Cerris in the Field</a>"))
            #expect(html.contains("value=\"cerris\""))

            let none = String(buffer: try await client.send(.get, "/search?q=zzzqqq", key: nil, headers: Self.browser).body)
            #expect(none.contains("Nothing matches “zzzqqq”."))
            let empty = try await client.send(.get, "/search?q=", key: nil, headers: Self.browser)
            #expect(empty.status == .ok)
        }
    }

    @Test(
        "a species page: taxonomy path, hybrid parents and hybrids as links, every source's description side by side with its license and URL, markdown rendered"
    )
    func speciesPage() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let source = try await client.send(
                .post, "/api/v1/sources",
                json:
                    #"{"source_type": "website", "name": "Oaks of the East", "url": "https://oaks.example/east", "license": "CC BY 4.0", "license_url": "https://creativecommons.org/licenses/by/4.0/"}"#
            )
            let id = try #require(try source.object()["id"] as? Int)
            let created = try await client.send(
                .post, "/api/v1/species/alba/sources",
                json: #"{"source_id": \#(id), "leaves": "Deeply **lobed**, 5–9 lobes.", "bark": "Pale grey, *scaly*.", "local_names": ["white oak"]}"#)
            #expect(created.status == .created)

            let alba = try await client.send(.get, "/species/alba", key: nil, headers: Self.browser)
            #expect(alba.status == .ok)
            let html = String(buffer: alba.body)
            #expect(html.contains("<title>Quercus alba · Oak Compendium</title>"))
            #expect(html.contains("<h1><i>Quercus alba</i> <span class=\"author\">L.</span></h1>"))
            #expect(html.contains("<a href=\"/taxa/subgenus/Quercus\">Quercus</a>"))
            #expect(html.contains("<a href=\"/taxa/section/Quercus\">Quercus</a>"))
            #expect(html.contains("<a href=\"/species/%C3%97%20bebbiana\"><i>Quercus × bebbiana</i></a>"))
            #expect(html.contains("<a href=\"/species/stellata\"><i>Quercus stellata</i></a>"))
            #expect(html.contains("<dd>white oak</dd>"))
            #expect(html.contains("<a href=\"/sources/\(id)\">Oaks of the East</a>"))
            #expect(html.contains("<a href=\"https://oaks.example/east\" rel=\"nofollow noopener noreferrer\">Source page</a>"))
            #expect(html.contains("License: <a href=\"https://creativecommons.org/licenses/by/4.0/\" rel=\"nofollow noopener noreferrer\">CC BY 4.0</a>"))
            #expect(html.contains("<h4>Leaves</h4><div class=\"text\"><p>Deeply <strong>lobed</strong>, 5–9 lobes.</p></div>"))
            #expect(html.contains("<h4>Bark</h4><div class=\"text\"><p>Pale grey, <em>scaly</em>.</p></div>"))

            let hybrid = String(buffer: try await client.send(.get, "/species/%C3%97%20bebbiana", key: nil, headers: Self.browser).body)
            #expect(
                hybrid.contains(
                    "<dt>Hybrid of</dt><dd><a href=\"/species/alba\"><i>Quercus alba</i></a> <a href=\"/species/macrocarpa\"><i>Quercus macrocarpa</i></a> </dd>"
                ))
        }
    }

    @Test("a species, taxon or source that does not exist is a 404 page, not JSON")
    func missingIsAPage() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            for path in ["/species/nonexistent", "/taxa/section/Nowhere", "/sources/99999", "/taxa/tribe/Quercus"] {
                let response = try await client.send(.get, path, key: nil, headers: Self.browser)
                #expect(response.status == (path.contains("tribe") ? .badRequest : .notFound), "\(path)")
                #expect(response.headers[.contentType] == "text/html; charset=utf-8", "\(path)")
                #expect(String(buffer: response.body).contains("<a href=\"/\">Back to the compendium</a>"))
            }
        }
    }

    @Test("the taxonomy is a tree with species counts; a taxon's page lists its species; a source's page lists what it describes")
    func taxonomyAndSources() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let tree = String(buffer: try await client.send(.get, "/taxonomy", key: nil, headers: Self.browser).body)
            // Subgenus Cerris holds section Cerris, nested in its list.
            let cerris = try #require(tree.range(of: "<a href=\"/taxa/subgenus/Cerris\">Cerris</a>"))
            let section = try #require(tree.range(of: "<a href=\"/taxa/section/Cerris\">Cerris</a>"))
            #expect(cerris.upperBound < section.lowerBound)
            #expect(tree[cerris.upperBound..<section.lowerBound].contains("<ul>"))
            #expect(tree.contains(#/<a href="/taxa/subgenus/Quercus">Quercus</a> <span class="count">[1-9][0-9]*</span>/#))

            let taxon = String(buffer: try await client.send(.get, "/taxa/subgenus/Cerris", key: nil, headers: Self.browser).body)
            #expect(taxon.contains("<a href=\"/species/cerris\"><i>Quercus cerris</i></a>"))
            #expect(!taxon.contains("/species/alba\""))

            let source = try await client.send(.post, "/api/v1/sources", json: #"{"source_type": "book", "name": "A Book of Oaks"}"#)
            let id = try #require(try source.object()["id"] as? Int)
            try await client.send(.post, "/api/v1/species/ilex/sources", json: #"{"source_id": \#(id), "leaves": "Evergreen."}"#)
            let list = String(buffer: try await client.send(.get, "/sources", key: nil, headers: Self.browser).body)
            #expect(list.contains("<a href=\"/sources/\(id)\">A Book of Oaks</a>"))
            let page = String(buffer: try await client.send(.get, "/sources/\(id)", key: nil, headers: Self.browser).body)
            #expect(page.contains("<a href=\"/species/ilex\"><i>Quercus ilex</i></a>"))
            #expect(!page.contains("/species/alba\""))
        }
    }

    @Test("hostile content in every field is escaped: no element, attribute or javascript: link of its own reaches the page")
    func hostileContentEscaped() async throws {
        let env = try await TestEnvironment()
        let attack = #""><script>alert(1)</script><img src=x onerror=alert(2)>'"#
        let long = String(repeating: "q", count: 10_000)
        let rtl = "\u{202E}kao \u{05D0}\u{05DC}\u{05D5}\u{05DF} a\u{0301}\u{0301}"
        try await env.test { client in
            let source = try await client.send(
                .post, "/api/v1/sources",
                json: try jsonText([
                    "source_type": "book", "name": "Evil \(attack) \(rtl)", "url": "javascript:alert(3)", "license": attack,
                    "license_url": " javascript:alert(4)", "author": attack, "description": "[click](javascript:alert(5)) \(attack)",
                    "notes": "<b onmouseover=alert(6)>x</b> ![i](https://tracker.example/p.png)",
                ]))
            #expect(source.status == .created)
            let id = try #require(try source.object()["id"] as? Int)
            let species = try await client.send(
                .post, "/api/v1/species",
                json: try jsonText([
                    "scientific_name": "hostilis", "author": String((attack + long).prefix(1000)), "synonyms": [attack, rtl],
                    "subspecies_varieties": [attack],
                    "external_links": [["name": attack, "url": "javascript:alert(7)"], ["name": "ok", "url": "https://ok.example/\"onmouseover=x"]],
                ]))
            #expect(species.status == .created)
            let description = try await client.send(
                .post, "/api/v1/species/hostilis/sources",
                json: try jsonText([
                    "source_id": id, "local_names": [attack], "miscellaneous": long,
                    "leaves": "[x](javascript:alert(8)) [y](https://a.example/\"onclick=\"x) \(attack)",
                    "bark": "<script>alert(9)</script>", "range": "```\n</code></pre><script>alert(10)</script>\n```", "url": "data:text/html,x",
                ]))
            #expect(description.status == .created)
            let taxon = try await client.send(
                .post, "/api/v1/taxa",
                json: try jsonText([
                    "name": "Hostilae", "level": "section", "parent": "Quercus", "author": attack, "notes": "[n](javascript:alert(11)) \(attack) \(rtl)",
                ]))
            #expect(taxon.status == .created)

            for path in [
                "/species/hostilis", "/sources/\(id)", "/sources", "/taxonomy", "/taxa/section/Hostilae", "/search?q=hostilis",
                "/search?q=\(attack.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
            ] {
                let response = try await client.send(.get, path, key: nil, headers: Self.browser)
                #expect(response.status == .ok, "\(path)")
                let html = String(buffer: response.body)
                // The one script element is the page's own.
                #expect(html.components(separatedBy: "<script").count == 2, "\(path)")
                #expect(html.contains("<script src=\"/assets/oak.js\" defer></script>"), "\(path)")
                #expect(!html.lowercased().contains("javascript:alert"), "\(path)")
                #expect(!html.contains("<img"), "\(path)")
                #expect(!html.contains("<b "), "\(path)")
                #expect(!html.contains("\"onmouseover"), "\(path)")
                #expect(!html.contains("\"onclick"), "\(path)")
                #expect(html.hasSuffix("</html>\n"), "\(path): the page is whole")
            }
            let page = String(buffer: try await client.send(.get, "/species/hostilis", key: nil, headers: Self.browser).body)
            #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(page.contains(long))
            #expect(page.contains(rtl))
            #expect(page.contains("<p>[x](javascript:alert(8))") == false)
            #expect(page.contains("<p>x <a href=\"https://a.example/&quot;onclick=&quot;x\" rel=\"nofollow noopener noreferrer\">y</a>"))
        }
    }

    @Test("every page carries its security headers (a policy without unsafe-inline, no framing), an ETag answered with 304, and gzip when asked")
    func headersCachingAndCompression() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            for path in ["/", "/species/alba", "/taxonomy", "/sources", "/search?q=alba", "/species/nonexistent"] {
                let response = try await client.send(.get, path, key: nil, headers: Self.browser)
                let policy = try #require(response.headers[.contentSecurityPolicy], "\(path)")
                #expect(policy.contains("frame-ancestors 'none'"), "\(path)")
                #expect(policy.contains("default-src 'none'"), "\(path)")
                #expect(!policy.contains("unsafe-inline"), "\(path)")
                #expect(response.headers[values: .contentSecurityPolicy].count == 1, "\(path): one policy")
                #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(path)")
            }
            let first = try await client.send(.get, "/species/alba", key: nil, headers: Self.browser)
            let second = try await client.send(.get, "/species/alba", key: nil, headers: Self.browser)
            let etag = try #require(second.headers[.eTag])
            #expect(String(buffer: first.body) == String(buffer: second.body))
            var conditional = Self.browser
            conditional[.ifNoneMatch] = etag
            let unchanged = try await client.send(.get, "/species/alba", key: nil, headers: conditional)
            #expect(unchanged.status == .notModified)
            // The browser takes the 304's fields for the page it kept: the page's own policy, which lets its stylesheet load.
            #expect(unchanged.headers[values: .contentSecurityPolicy] == [WebPagesTests.policy])

            // A change of the data is a new page.
            try await client.send(.patch, "/api/v1/species/alba", json: #"{"conservation_status": "VU"}"#)
            let changed = try await client.send(.get, "/species/alba", key: nil, headers: conditional)
            #expect(changed.status == .ok)
            #expect(String(buffer: changed.body).contains("<dd>VU</dd>"))

            var gzip = Self.browser
            gzip[.acceptEncoding] = "gzip"
            for (path, text) in [("/species/alba", "Quercus alba"), ("/assets/oak.css", "font:"), ("/assets/oak.js", "textContent")] {
                let compressed = try await client.send(.get, path, key: nil, headers: gzip)
                #expect(compressed.headers[.contentEncoding] == "gzip", "\(path)")
                var body = compressed.body
                let plain = try body.decompress(with: .gzip())
                #expect(String(buffer: plain).contains(text), "\(path)")
            }
            let css = try await client.send(.get, "/assets/oak.css", key: nil)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            let script = try await client.send(.get, "/assets/oak.js", key: nil)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            let icon = try await client.send(.get, "/assets/oak.svg", key: nil)
            #expect(icon.headers[.contentType] == "image/svg+xml")
            #expect(String(buffer: icon.body).hasPrefix("<svg"))
        }
    }

    @Test("--no-web: no pages, no sign-in, forms or live updates, and / answers its JSON index even to a browser")
    func noWeb() async throws {
        let env = try await TestEnvironment()
        var configuration = env.configuration
        configuration.web = false
        try await env.test(configuration: configuration) { client in
            let index = try await client.send(.get, "/", key: nil, headers: Self.browser)
            #expect(index.headers[.contentType] == "application/json; charset=utf-8")
            #expect(index.headers[.vary] == nil)
            for path in ["/species/alba", "/taxonomy", "/assets/oak.css", "/sign-in", "/edit/species/alba", "/new/source", "/events/species/alba"] {
                #expect(try await client.send(.get, path, key: nil, headers: Self.browser).status == .notFound, "\(path)")
            }
            let signIn = try await client.postForm("/sign-in", ["key": TestEnvironment.ownerKey])
            #expect(signIn.status == .notFound)
            #expect(signIn.headers[.setCookie] == nil)
            #expect(try await client.send(.get, "/api/v1/species/alba", key: nil).status == .ok)
        }
    }
}

/// A JSON document's text, written by Foundation's serializer.
private func jsonText(_ object: [String: Any]) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
}
