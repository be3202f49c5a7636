package normalize

import (
	"testing"

	"github.com/uriscan/uriscan"
)

func shapeOf(t *testing.T, in string) string {
	t.Helper()
	u, err := uriscan.ParseString(in)
	if err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	var n Normalizer
	return string(n.Append(nil, &u, Shape))
}

func TestShape(t *testing.T) {
	defer func() {
		// every shape is a URI-reference
		for _, in := range []string{"123", "123/x", "http://h/1", "//h/2?a"} {
			if _, err := uriscan.ParseString(shapeOf(t, in)); err != nil {
				t.Errorf("the shape of %q does not parse: %v", in, err)
			}
		}
	}()
	for _, c := range []struct{ in, want string }{
		{"https://Example.com/users/123/posts?page=2&sort=new#top", "https://example.com/users/:int/posts?page&sort"},
		{"http://h/a/550e8400-e29b-41d4-a716-446655440000/b", "http://h/a/:uuid/b"},
		{"http://h/archive/2024-01-31/x", "http://h/archive/:date/x"},
		{"http://h/archive/20240131", "http://h/archive/:date"},
		{"http://h/archive/20241331", "http://h/archive/:int"}, // month 13: a number
		{"http://h/c/5f2b9c1e0a", "http://h/c/:hex"},
		{"http://h/c/deadbeef", "http://h/c/deadbeef"}, // no digit: a word
		{"http://h/c/1234abc", "http://h/c/1234abc"},   // 7 hex digits: too short
		{"http://h/item/12345.html", "http://h/item/:int.html"},
		{"http://h/v1.2/x", "http://h/v1.2/x"},
		{"http://h/?b=1&a=2&b=3&=4", "http://h/?a&b"},
		{"http://h/?", "http://h/"},
		{"mailto:a@b.c", "mailto:a@b.c"},
		{"123/456", "123/:int"}, // a relative reference's first segment stays
		{"/123/456", "/:int/:int"},
	} {
		if got := shapeOf(t, c.in); got != c.want {
			t.Errorf("Shape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestShapeUroExamples: the pairs uro's README says it reduces to one are
// one shape; its other removals (static files by extension, blog posts)
// are not a key's business.
func TestShapeUroExamples(t *testing.T) {
	for _, p := range [][2]string{
		{"http://example.com/page/1/", "http://example.com/page/2/"},
		{"http://example.com/page.php?id=1", "http://example.com/page.php?id=2"},
		{"http://example.com/books/1", "http://example.com/books/42"},
	} {
		if a, b := shapeOf(t, p[0]), shapeOf(t, p[1]); a != b {
			t.Errorf("%q and %q: shapes %q and %q, want one", p[0], p[1], a, b)
		}
	}
	for _, p := range [][2]string{
		{"http://example.com/page.php?id=1", "http://example.com/page.php?user=1"},
		{"http://example.com/page.php", "http://example.com/page.php?id=1"},
	} {
		if a, b := shapeOf(t, p[0]), shapeOf(t, p[1]); a == b {
			t.Errorf("%q and %q: one shape %q, want two", p[0], p[1], a)
		}
	}
}

func TestShapeAllocs(t *testing.T) {
	u, _ := uriscan.ParseString("https://Example.com/users/123/posts/550e8400-e29b-41d4-a716-446655440000?page=2&sort=new&b=1#top")
	var n Normalizer
	dst := n.Append(nil, &u, Shape)
	if a := testing.AllocsPerRun(100, func() { dst = n.Append(dst[:0], &u, Shape) }); a != 0 {
		t.Errorf("Append at Shape: %v allocations, want 0", a)
	}
}
