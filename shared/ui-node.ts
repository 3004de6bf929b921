/**
 * A UI tree's node as the contract names its fields (docs/CONTRACT.md, `GET /ui`), in one place
 * for the three that speak it: a game kit's tree, the tree made of a page's accessibility tree,
 * and the daemon's reader. Each narrows what it must: a kit's node carries its actions and its
 * rect is four numbers, a page's node says only when it is disabled, the reader takes any scalar
 * value a game sends.
 */
export interface UiNodeFields<Child, Value = string | number> {
  /** Unique in the tree and stable while the element exists: the agent's reference. */
  id: string;
  /** An ARIA role name: button, link, checkbox, radio, slider, textbox, combobox, text, group… */
  role: string;
  /** What a player reads. */
  name: string;
  value?: Value;
  min?: number;
  max?: number;
  checked?: boolean;
  selected?: boolean;
  focused?: boolean;
  visible?: boolean;
  enabled?: boolean;
  /** `[x, y, w, h]` in screenshot pixels, top-left origin. */
  rect?: number[];
  children?: Child[];
}
