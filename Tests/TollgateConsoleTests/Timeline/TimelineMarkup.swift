import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// An HTML fragment the console renders, parsed as XML (Foundation's XMLParser): it must be well
/// formed, and the tests read its elements, attributes and text from the parse, never by string
/// search.
final class TimelineMarkup: NSObject, XMLParserDelegate {
  /// One element: its name, attributes, the text directly and deeply inside it, its children.
  final class Element {
    let name: String
    let attributes: [String: String]
    weak var parent: Element?
    var children: [Element] = []
    var text = ""

    init(name: String, attributes: [String: String], parent: Element?) {
      self.name = name
      self.attributes = attributes
      self.parent = parent
    }

    subscript(_ attribute: String) -> String? { attributes[attribute] }

    /// Every element below this one, depth first, in document order.
    var descendants: [Element] { children.flatMap { [$0] + $0.descendants } }

    func all(_ name: String) -> [Element] { descendants.filter { $0.name == name } }

    /// The `<title>` child's text (an SVG element's hover text).
    var title: String? { children.first { $0.name == "title" }?.text }
  }

  let root = Element(name: "#root", attributes: [:], parent: nil)
  private var current: Element
  private(set) var error: Error?

  /// Parses `fragment` (several top-level elements) inside one wrapper element.
  init(_ fragment: String) {
    current = root
    super.init()
    let parser = XMLParser(data: Data("<fragment>\(fragment)</fragment>".utf8))
    parser.delegate = self
    if !parser.parse() { error = parser.parserError ?? CocoaError(.coderReadCorrupt) }
  }

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    let element = Element(name: elementName, attributes: attributes, parent: current)
    current.children.append(element)
    current = element
  }

  func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
    current = current.parent ?? root
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    var element: Element? = current
    while let each = element {
      each.text += string
      element = each.parent
    }
  }

  /// Every element named `name` in the fragment.
  func all(_ name: String) -> [Element] { root.all(name) }

  /// Every drawn mark (`<g data-kind>` inside an `<svg>`).
  var marks: [Element] { all("g").filter { $0["data-kind"] != nil } }

  /// The figures, by id.
  var figures: [Element] { all("figure") }
}
