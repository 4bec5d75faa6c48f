import OakModels
import OakStore
import Testing

/// The rule of a taxon's create and update (`TaxonWrite`), over facts given as a backend would read them.
@Suite("Taxon write rule")
struct TaxonWriteTests {
    private func patch(name: String? = nil, level: String? = nil, parent: Patch<String> = .absent, author: String? = nil) -> TaxonPatch {
        var patch = TaxonPatch()
        if let name { patch.name = .value(name) }
        if let level { patch.level = .value(level) }
        patch.parent = parent
        if let author { patch.author = .value(author) }
        return patch
    }

    private let lobatae = Taxon(name: "Lobatae", level: .section, parent: "Quercus")

    @Test("a create names the parent to find one level up; a subgenus, or a taxon naming none, has none to find")
    func createParentToFind() throws {
        let section = try TaxonWrite.create(patch(name: "Lobatae", level: "section", parent: .value("Quercus")))
        #expect(section.parentToFind == TaxonKey(.subgenus, "Quercus"))
        #expect(section.taxon.key == TaxonKey(.section, "Lobatae"))
        #expect(try TaxonWrite.create(patch(name: "Quercus", level: "subgenus")).parentToFind == nil)
        #expect(try TaxonWrite.create(patch(name: "Lobatae", level: "section")).parentToFind == nil)
    }

    @Test("a create of a taxon that exists under its level and name is a 409")
    func createExisting() throws {
        let creation = try TaxonWrite.create(patch(name: "Lobatae", level: "section", parent: .value("Quercus")))
        let error = oakError { try creation.checked(alreadyExists: true, parent: nil) }
        #expect(error?.code == .conflict)
        #expect(error?.message == "Taxon section 'Lobatae' already exists")
    }

    @Test("a parent that is not stored one level up is a 400 naming parent; a found one passes")
    func parentMissing() throws {
        let creation = try TaxonWrite.create(patch(name: "Lobatae", level: "section", parent: .value("Quercus")))
        let error = oakError { try creation.checked(parent: nil) }
        #expect(error?.code == .validationError)
        #expect(fields(of: error) == ["parent"])
        #expect(error?.fieldErrors.first?.message == "no subgenus named 'Quercus' exists")
        #expect(try creation.checked(parent: Taxon(name: "Quercus", level: .subgenus)) == creation.taxon)
    }

    @Test("an invalid body is a 400 before anything is read")
    func invalidBody() {
        let error = oakError { try TaxonWrite.create(patch(level: "section")) }
        #expect(fields(of: error) == ["name"])
        #expect(oakError { try TaxonWrite.create(patch(name: "Quercus", level: "subgenus", parent: .value("Any"))) }?.code == .conflict)
    }

    @Test("an update that leaves the parent as it was checks no parent, even one that is gone")
    func updateKeepsParent() throws {
        let update = try TaxonWrite.update(lobatae, with: patch(author: "Örsted"))
        #expect(update.parentToFind == nil)
        let taxon = try update.checked(parent: nil)
        #expect(taxon.author == "Örsted")
        #expect(taxon.parent == "Quercus")
    }

    @Test("an update naming a parent must find it; one clearing the parent finds none")
    func updateNamesParent() throws {
        let update = try TaxonWrite.update(lobatae, with: patch(parent: .value("Cerris")))
        #expect(update.parentToFind == TaxonKey(.subgenus, "Cerris"))
        #expect(fields(of: oakError { try update.checked(parent: nil) }) == ["parent"])
        let cleared = try TaxonWrite.update(lobatae, with: patch(parent: .null))
        #expect(cleared.parentToFind == nil)
        #expect(try cleared.checked(parent: nil).parent == nil)
    }
}
