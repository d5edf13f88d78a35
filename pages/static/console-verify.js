// After a file is verified the page reloads with the result below the form: move focus to the result's heading
// so that keyboard and screen-reader users land on (and hear) what was found, not back at the top.
const heading = document.getElementById("result-heading");
if (heading) {
  heading.focus();
}
