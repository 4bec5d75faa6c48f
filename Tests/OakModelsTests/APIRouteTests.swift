import Foundation
import OakModels
import Testing

@Suite("API routes (the catalogue)")
struct APIRouteTests {
    @Test("a route's parameters come from its template; a path is filled with values each encoded as one segment")
    func pathsAreFilled() {
        #expect(APIRoute.speciesSource.pathParameters == ["name", "sourceId"])
        #expect(APIRoute.listSpecies.pathParameters.isEmpty)
        #expect(APIRoute.speciesSource.path("× bebbiana", "3") == "/api/v1/species/%C3%97%20bebbiana/sources/3")
        #expect(APIRoute.species.path("a/b?c#d") == "/api/v1/species/a%2Fb%3Fc%23d")
        #expect(APIRoute.note.path("0A1B-c_d.e~f") == "/api/v1/notes/0A1B-c_d.e~f")
        #expect(APIRoute.listSpecies.path() == "/api/v1/species")
        #expect(APIRoute.index.path() == "/")
        #expect(APIRoute.taxon.description == "GET /api/v1/taxa/{level}/{name}")
    }

    @Test("a concrete path matches its route exactly, and gives the parameters' values as sent")
    func pathsMatch() {
        #expect(APIRoute.species.parameterValues(in: "/api/v1/species/alba") == ["alba"])
        #expect(APIRoute.species.parameterValues(in: "/api/v1/species/%C3%97%20bebbiana") == ["%C3%97%20bebbiana"])
        #expect(APIRoute.speciesSource.parameterValues(in: "/api/v1/species/alba/sources/3") == ["alba", "3"])
        for path in ["/api/v1/species/", "/api/v1/species", "/api/v1/species/alba/", "/api/v1/species/alba/full", "/api/v1//species/alba", "/species/alba"] {
            #expect(APIRoute.species.parameterValues(in: path) == nil, "\(path)")
        }
        #expect(APIRoute.search.matches("/api/v1/search"))
        #expect(!APIRoute.search.matches("/api/v1/search/"))
        #expect(APIRoute.index.matches("/"))
        #expect(!APIRoute.index.matches(""))
    }

    @Test("every route's path is a template of literal segments and {parameters}, and the catalogue names each route once")
    func catalogueIsWellFormed() {
        #expect(Set(APIRoute.all).count == APIRoute.all.count)
        for route in APIRoute.all {
            for segment in route.segments {
                if case .literal(let text) = segment { #expect(!text.contains("{") && !text.contains("}") && !text.contains(":"), "\(route)") }
            }
            #expect(Set(route.query).count == route.query.count, "\(route) names a query parameter twice")
        }
    }
}
