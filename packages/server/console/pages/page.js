// What the pages that read their data when they open share: the load on mount, and a failed step shown.
import { Component } from '../ui.js';

/**
 * A page that loads its data when it mounts (its `load`) and shows a step that failed as its state's `error`
 * (the page renders it with <Problem>).
 * @template P
 * @template {{ error: unknown }} S
 * @extends {Component<P, S>}
 */
export class LoadingPage extends Component {
  /** @override */
  componentDidMount() {
    this.load();
  }

  /** Reads the page's data; a page overrides it. */
  async load() {}

  /**
   * What the page shows; a page overrides it.
   * @override
   * @param {import('preact').RenderableProps<P>} [_props]
   * @param {Readonly<S>} [_state]
   * @returns {import('preact').ComponentChildren}
   */
  render(_props, _state) {
    return null;
  }

  /**
   * Runs one step of the page (its load, an action); a failure becomes the state's `error`.
   * @param {() => Promise<unknown>} step
   */
  async attempt(step) {
    try {
      await step();
    } catch (error) {
      this.setState(/** @type {Partial<S>} */ ({ error }));
    }
  }
}
