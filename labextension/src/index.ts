/**
 * The jupyter-design-projects JupyterLab plugin: adds the "Design & Projects" panel to the
 * right side bar and a command that opens it.
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { LabIcon } from '@jupyterlab/ui-components';

import { StatusPanel } from './panel';

const PANEL_ID = 'jdp-status-panel';
const OPEN_COMMAND = 'jupyter-design-projects:open-panel';

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<g class="jp-icon3" fill="#616161">' +
  '<path d="M3 4h12v2H3zM3 9h12v2H3zM3 14h8v2H3z"/>' +
  '<path d="M17 12l4 4-4 4-1.4-1.4 1.6-1.6H13v-2h4.2l-1.6-1.6z"/>' +
  '</g></svg>';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-design-projects:panel',
  description: 'Shows the Design & Projects service, attached Project and authorizations.',
  autoStart: true,
  optional: [ICommandPalette, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null
  ) => {
    const panel = new StatusPanel();
    panel.id = PANEL_ID;
    panel.title.icon = new LabIcon({ name: 'jupyter-design-projects:panel', svgstr: ICON_SVG });
    panel.title.caption = 'Design & Projects';
    app.shell.add(panel, 'right', { rank: 900 });
    if (restorer) {
      restorer.add(panel, PANEL_ID);
    }
    app.commands.addCommand(OPEN_COMMAND, {
      label: 'Open the Design & Projects panel',
      execute: () => {
        app.shell.activateById(PANEL_ID);
        return panel.refresh();
      }
    });
    if (palette) {
      palette.addItem({ command: OPEN_COMMAND, category: 'Design & Projects' });
    }
  }
};

export default plugin;
