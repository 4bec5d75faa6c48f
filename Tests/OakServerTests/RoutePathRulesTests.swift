import OakModels
import Testing

@testable import OakServer

/// The rules the server applies by path before routing agree with the routes of the catalogue (`APIRoute`).
@Suite("Path rules")
struct RoutePathRulesTests {
    @Test("a POST takes a form exactly on the pages' routes (signing in and out, the edit forms), never on the API's")
    func formsFollowTheCatalogue() {
        for route in APIRoute.all where route.method == .post {
            let isPage = !route.path.hasPrefix(APIRoute.apiRoot + "/")
            #expect(WebEditController.takesForms(route.path) == isPage, "\(route)")
        }
    }

    @Test("the forms' folders and the pages' files' folder come from the catalogue: /edit/ and /new/, and /assets/")
    func foldersFromTheCatalogue() {
        #expect(APIRoute.folders(of: APIRoute.forms) == ["/edit/", "/new/"])
        #expect(APIRoute.folders(of: APIRoute.assets) == ["/assets/"])
        #expect(WebEditController.takesForms("/edit/species/no-such-page/at-all"), "a path under a form folder takes a form even where no route matches")
    }
}
